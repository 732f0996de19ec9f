import Foundation
import NIOCore
import NIOHPACK

/// What goes on the wire for one notification, and what an answer means: pure functions, no I/O.
enum APNsWireFormat {
    static func requestHeaders(for request: APNsRequest, authorization: String, authority: String) -> HPACKHeaders {
        var headers = HPACKHeaders()
        headers.reserveCapacity(12)
        headers.add(name: ":method", value: "POST")
        headers.add(name: ":scheme", value: "https")
        // Per-request values are not indexed: they would only churn HPACK's dynamic table, which then
        // holds the constant headers (authorization, topic, push type) that every request shares.
        headers.add(name: ":path", value: "/3/device/" + request.deviceToken, indexing: .nonIndexable)
        headers.add(name: ":authority", value: authority)
        headers.add(name: "authorization", value: authorization)
        headers.add(name: "apns-push-type", value: request.pushType)
        headers.add(name: "apns-topic", value: request.topic)
        headers.add(name: "apns-priority", value: request.priority == .immediate ? "10" : "5")
        if let expiration = request.expiration {
            headers.add(name: "apns-expiration", value: String(expiration), indexing: .nonIndexable)
        }
        if let id = request.apnsID { headers.add(name: "apns-id", value: id, indexing: .nonIndexable) }
        if let collapse = request.collapseID { headers.add(name: "apns-collapse-id", value: collapse) }
        headers.add(name: "content-length", value: String(request.body.readableBytes))
        return headers
    }

    static func outcome(status: Int, apnsID: String?, body: ByteBuffer?) -> APNsOutcome {
        if status == 200 { return .accepted(apnsID: apnsID) }
        struct ErrorBody: Decodable {
            var reason: String?
            var timestamp: Int64?
        }
        let decoded = body.flatMap { try? JSONDecoder().decode(ErrorBody.self, from: Data($0.readableBytesView)) }
        let reason = decoded?.reason.map(APNsReason.init(name:)) ?? .unknown("HTTP \(status)")
        return .rejected(status: status, reason: reason, timestamp: decoded?.timestamp)
    }
}
