import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Synchronization

/// A real HTTP server on a real port that answers what a test scripts and records what it was asked: for the
/// client's behaviour at the edges the real gateway does not produce on demand (503 with Retry-After, a 404 of a
/// forgotten channel). The end-to-end tests run the client against the real gateway.
final class ScriptedServer: Sendable {
    struct Recorded: Sendable {
        var method: String
        var path: String
        var query: String
        var headers: [String: String]
        var body: [String: Any] { (try? JSONSerialization.jsonObject(with: self.bodyData)) as? [String: Any] ?? [:] }
        var bodyData: Data
    }
    struct Answer: Sendable {
        var status: Int
        var body: String
        var headers: [String: String] = [:]
    }

    private let recorded = Mutex<[Recorded]>([])
    /// Scripted answers by `METHOD path-prefix`, first match first; unmatched calls get `fallback`.
    private let script = Mutex<[(String, Answer)]>([])
    let fallback: @Sendable (String, String) -> Answer

    init(fallback: @escaping @Sendable (String, String) -> Answer = ScriptedServer.gatewayLike) {
        self.fallback = fallback
    }

    var requests: [Recorded] { self.recorded.withLock { $0 } }

    /// The next call whose `METHOD path` starts with `prefix` gets `answer` (once).
    func enqueue(_ prefix: String, _ answer: Answer) { self.script.withLock { $0.append((prefix, answer)) } }

    /// What the gateway answers on success, by route.
    static let gatewayLike: @Sendable (String, String) -> Answer = { method, path in
        switch (method, path) {
        case ("POST", "/api/channels"):
            Answer(status: 201, body: #"{"ok":true,"channel_id":"c-1","channel_secret":"s-1"}"#)
        case ("POST", _) where path.hasSuffix("/reconcile"): Answer(status: 200, body: #"{"ok":true,"ended":0}"#)
        case ("PUT", _) where path.contains("/live-activities/"):
            Answer(status: 200, body: #"{"ok":true,"result":"started"}"#)
        case ("DELETE", _) where path.contains("/live-activities/"):
            Answer(status: 200, body: #"{"ok":true,"ended":1}"#)
        case ("GET", _) where path.hasPrefix("/api/broadcast-channels/"):
            Answer(
                status: 404, body: #"{"ok":false,"error":"The broadcast channel was not found.","error_code":40400}"#)
        default: Answer(status: 200, body: #"{"ok":true,"result":"updated"}"#)
        }
    }

    func answer(_ request: Request) async throws -> Response {
        var request = request
        let body = try await request.collectBody(upTo: 1 << 20)
        var headers: [String: String] = [:]
        for field in request.headers { headers[field.name.canonicalName] = field.value }
        let method = request.method.rawValue
        let path = request.uri.path
        self.recorded.withLock {
            $0.append(
                Recorded(
                    method: method, path: path, query: request.uri.query ?? "", headers: headers,
                    bodyData: Data(body.readableBytesView)))
        }
        let key = "\(method) \(path)"
        let scripted = self.script.withLock { script -> Answer? in
            guard let index = script.firstIndex(where: { key.hasPrefix($0.0) }) else { return nil }
            return script.remove(at: index).1
        }
        let answer = scripted ?? self.fallback(method, path)
        var fields = HTTPFields()
        fields[.contentType] = "application/json"
        for (name, value) in answer.headers { fields[HTTPField.Name(name)!] = value }
        return Response(
            status: .init(code: answer.status), headers: fields,
            body: .init(byteBuffer: ByteBuffer(string: answer.body)))
    }

    /// Runs `body` with the server listening; passes its base URL.
    func run(_ body: @Sendable (URL) async throws -> Void) async throws {
        let router = Router()
        for method in [HTTPRequest.Method.get, .put, .post, .delete] {
            router.on("**", method: method) { request, _ in try await self.answer(request) }
        }
        let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)))
        try await app.test(.live) { client in
            try await body(URL(string: "http://127.0.0.1:\(client.port!)")!)
        }
    }
}
