import Foundation
import NIOCore

/// What an APNs answer means: pure functions, no I/O. (A request's header block: `HPACKRequestEncoder`.)
enum APNsWireFormat {
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
