import Crypto
import Foundation
import Hummingbird
import LiveActivitiesCore
import NIOCore

/// The simulator's admin API (plain HTTP, its own port): stats, recordings, trusted keys, knobs, reset.
enum AdminAPI {
    static func router(state: SimulatorState) -> Router<BasicRequestContext> {
        let router = Router()
        router.get("stats") { request, _ in
            let counters = state.snapshot()
            var body: [String: Any] = [
                "accepted": counters.accepted, "rejected": counters.rejected, "connections": counters.connections,
                "connections_total": counters.connectionsTotal, "max_streams_in_flight": counters.maxStreamsInFlight,
                "broadcasts": counters.broadcasts, "broadcasts_rejected": counters.broadcastsRejected,
            ]
            if let token = request.uri.queryParameters.get("token")?.lowercased() {
                let stats = counters.perToken[token] ?? TokenStats()
                body["token"] = ["accepted": stats.accepted, "rejected": stats.rejected]
            }
            // ?tokens=all: accepted counts of every token at once (large fan-out tests).
            if request.uri.queryParameters.get("tokens") == "all" {
                body["tokens"] = counters.perToken.mapValues { $0.accepted }
            }
            return try json(body)
        }
        router.get("notifications") { request, _ in
            guard let token = request.uri.queryParameters.get("token")?.lowercased() else {
                return try json(["error": "token is required"], status: .badRequest)
            }
            return try json(recordings(state.snapshot().recordings[token] ?? []))
        }
        // The broadcast channels Apple would know for a bundle id.
        router.get("channels") { request, _ in
            guard let bundle = request.uri.queryParameters.get("bundle_id") else {
                return try json(["error": "bundle_id is required"], status: .badRequest)
            }
            let channels = state.channels.withLock { $0[bundle] ?? [:] }
            let list: [[String: Any]] = channels.sorted { $0.value.createdAt < $1.value.createdAt }.map {
                [
                    "channel_id": $0.key, "message_storage_policy": $0.value.messageStoragePolicy,
                    "created_at": $0.value.createdAt,
                ]
            }
            return try json(["channels": list])
        }
        // The broadcast requests accepted for a channel, oldest first, shaped like /notifications.
        router.get("broadcasts") { request, _ in
            guard let channel = request.uri.queryParameters.get("channel_id") else {
                return try json(["error": "channel_id is required"], status: .badRequest)
            }
            return try json(recordings(state.snapshot().broadcastRecordings[channel] ?? []))
        }
        // What each device shows, Apple's rules applied to its recorded notifications: `?token=` one, else all.
        router.get("activities") { request, _ in
            let recordings = state.snapshot().recordings
            let only = request.uri.queryParameters.get("token")?.lowercased()
            var devices: [String: Any] = [:]
            let contracts = state.contracts.withLock { $0 }
            for (token, notes) in recordings where only == nil || token == only {
                devices[token] = LiveActivityDevice.replaying(notes.map(\.body), contract: contracts[token]).json
            }
            return try json(devices)
        }
        // The app build's contract on these devices: `{"tokens": [...], "contract": {"content_state", "attributes"}}`;
        // `"contract": null` removes it.
        router.post("contracts") { request, _ in
            let object = try await body(request)
            guard let tokens = object["tokens"] as? [String] else {
                return try json(["error": "tokens is required"], status: .badRequest)
            }
            var contract: AttributesContract?
            if let raw = object["contract"], !(raw is NSNull) {
                do {
                    let data = try JSONSerialization.data(withJSONObject: raw)
                    let document = try JSONDecoder().decode(JSONValue.self, from: data)
                    contract = try AttributesContract(attributesType: "device", version: 0, document: document)
                } catch let error as ValidationError {
                    return try json(["error": "contract.\(error.path): \(error.rule)"], status: .badRequest)
                }
            }
            state.contracts.withLock { map in
                for token in tokens { map[token.lowercased()] = contract }
            }
            return try json(["ok": true])
        }
        router.post("keys") { request, _ in
            let object = try await body(request)
            guard let team = object["team_id"] as? String, let kid = object["key_id"] as? String,
                let pem = object["public_key"] as? String
            else { return try json(["error": "team_id, key_id and public_key are required"], status: .badRequest) }
            let publicKey: P256.Signing.PublicKey
            do {
                publicKey = try P256.Signing.PublicKey(pemRepresentation: pem)
            } catch {
                return try json(["error": "public_key must be a P-256 public key in PEM"], status: .badRequest)
            }
            let bundles = (object["bundle_ids"] as? [String]).map(Set.init)
            state.addKey(TrustedKey(teamID: team, keyID: kid, publicKey: publicKey, bundleIDs: bundles))
            return try json(["ok": true])
        }
        router.post("config") { request, _ in
            do {
                try state.updateKnobs(try await body(request))
            } catch let error as KnobError {
                return try json(["error": error.message], status: .badRequest)
            }
            return try json(["ok": true])
        }
        router.post("reset") { _, _ in
            state.reset()
            return try json(["ok": true])
        }
        return router
    }

    static func recordings(_ recorded: [RecordedNotification]) -> [[String: Any]] {
        recorded.map { note in
            [
                "headers": note.headers,
                "body": (try? JSONSerialization.jsonObject(with: note.body))
                    ?? String(decoding: note.body, as: UTF8.self),
                "received_at": note.receivedAt,
            ]
        }
    }

    static func body(_ request: Request) async throws -> [String: Any] {
        var request = request
        let buffer = try await request.collectBody(upTo: 1 << 20)
        return (try? JSONSerialization.jsonObject(with: Data(buffer.readableBytesView)) as? [String: Any]) ?? [:]
    }

    static func json(_ object: Any, status: HTTPResponse.Status = .ok) throws -> Response {
        let data = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
        return Response(
            status: status, headers: [.contentType: "application/json"],
            body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }
}
