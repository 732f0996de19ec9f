import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// Apple's broadcast API for Live Activities as the simulator serves it, over HTTP/2 and TLS on a port of its own:
/// channel management (`/1/apps/<bundle id>/channels`, `/all-channels`) and broadcast sends
/// (`/4/broadcasts/apps/<bundle id>`). Apple's checks in Apple's order, its reasons, and a registry of channels per
/// bundle id. Apple's words for each rule are quoted where it is checked (`BroadcastRules`).
enum BroadcastAPI {
    static func router(state: SimulatorState) -> Router<BasicRequestContext> {
        let router = Router()
        router.post("1/apps/:bundle/channels") { request, context in
            let bundle = context.parameters.get("bundle") ?? ""
            var request = request
            let body = try await request.collectBody(upTo: 64 * 1024)
            return Self.answer(
                BroadcastRules(state: state).create(
                    bundleID: bundle, authorization: request.headers[.authorization],
                    body: Data(body.readableBytesView)))
        }
        router.get("1/apps/:bundle/channels") { request, context in
            Self.answer(
                BroadcastRules(state: state).read(
                    bundleID: context.parameters.get("bundle") ?? "", headers: Self.fields(request)))
        }
        router.delete("1/apps/:bundle/channels") { request, context in
            Self.answer(
                BroadcastRules(state: state).delete(
                    bundleID: context.parameters.get("bundle") ?? "", headers: Self.fields(request)))
        }
        router.get("1/apps/:bundle/all-channels") { request, context in
            Self.answer(
                BroadcastRules(state: state).list(
                    bundleID: context.parameters.get("bundle") ?? "", headers: Self.fields(request)))
        }
        router.post("4/broadcasts/apps/:bundle") { request, context in
            var request = request
            // One byte past Apple's limit is enough to answer PayloadTooLarge.
            let body = try await request.collectBody(upTo: BroadcastRules.maxPayloadBytes + 1)
            // Judged (and recorded, with the time it arrived) at once; the latency knob then holds the answer back,
            // as for any APNs request: Apple is as far away for broadcasts.
            let answer = BroadcastRules(state: state).send(
                bundleID: context.parameters.get("bundle") ?? "", headers: Self.fields(request),
                body: Data(body.readableBytesView))
            let latency = state.currentKnobs.latencyMs
            if latency > 0 { try await Task.sleep(for: .milliseconds(latency)) }
            return Self.answer(answer)
        }
        return router
    }

    static func fields(_ request: Request) -> [String: String] {
        var fields: [String: String] = [:]
        for field in request.headers { fields[field.name.canonicalName] = field.value }
        return fields
    }

    static func answer(_ answer: BroadcastRules.Answer) -> Response {
        var headers = HTTPFields()
        headers[HTTPField.Name("apns-request-id")!] = answer.requestID
        for (name, value) in answer.headers { headers[HTTPField.Name(name)!] = value }
        var body = ByteBuffer()
        if let reason = answer.reason {
            headers[.contentType] = "application/json"
            body = ByteBuffer(string: #"{"reason":"\#(reason)"}"#)
        } else if let json = answer.json {
            headers[.contentType] = "application/json"
            body = ByteBuffer(bytes: json)
        }
        return Response(status: .init(code: answer.status), headers: headers, body: .init(byteBuffer: body))
    }
}
