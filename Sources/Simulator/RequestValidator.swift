import Crypto
import Foundation
import Shared

/// The checks APNs makes on a request, in APNs' order, answering with APNs' statuses and reasons.
/// `InvalidPayload` is the simulator's own reason for a body APNs would refuse (APNs' wording varies).
struct RequestValidator: Sendable {
    enum Verdict: Equatable {
        case accept
        case reject(APNsReason)
    }

    static let knownPushTypes: Set<String> = [
        "alert", "background", "liveactivity", "location", "voip", "complication", "fileprovider", "mdm", "pushtotalk",
        "widgets",
    ]

    let state: SimulatorState
    let now: @Sendable () -> Date

    struct Result: Equatable {
        var verdict: Verdict
        /// The device token from the path, when there is one.
        var token: String?
        /// The provider token was checked and is valid (the connection may now have more streams).
        var authenticated: Bool
    }

    /// `payloadIsValid` is asked only once everything else passed (it may be cached per body).
    func validate(
        method: String?, path: String?, headers: [String: String], bodySize: Int, payloadIsValid: (Bool) -> Bool
    ) -> Result {
        guard method == "POST" else { return Result(verdict: .reject(.methodNotAllowed), authenticated: false) }
        guard let path, path.hasPrefix("/3/device/") else {
            return Result(verdict: .reject(.badPath), authenticated: false)
        }
        let token = String(path.dropFirst("/3/device/".count))
        func reject(_ reason: APNsReason, _ authenticated: Bool = true) -> Result {
            Result(verdict: .reject(reason), token: token.isEmpty ? nil : token, authenticated: authenticated)
        }
        guard !token.isEmpty else { return reject(.missingDeviceToken, false) }
        guard Self.isDeviceToken(token) else { return reject(.badDeviceToken, false) }
        if let reason = self.checkProviderToken(headers["authorization"], topic: headers["apns-topic"]) {
            return reject(reason, reason.action != .refreshCredentials)
        }
        guard let topic = headers["apns-topic"], !topic.isEmpty else { return reject(.missingTopic) }
        guard let pushType = headers["apns-push-type"], Self.knownPushTypes.contains(pushType) else {
            return reject(.invalidPushType)
        }
        if pushType == "liveactivity" && !topic.hasSuffix(".push-type.liveactivity") { return reject(.badTopic) }
        if let priority = headers["apns-priority"], !["1", "5", "10"].contains(priority) {
            return reject(.badPriority)
        }
        if let expiration = headers["apns-expiration"], Int(expiration) == nil { return reject(.badExpirationDate) }
        if let id = headers["apns-id"], UUID(uuidString: id) == nil { return reject(.badMessageID) }
        if let collapse = headers["apns-collapse-id"], collapse.utf8.count > 64 { return reject(.badCollapseID) }
        if bodySize == 0 { return reject(.payloadEmpty) }
        if bodySize > 4096 { return reject(.payloadTooLarge) }
        if !payloadIsValid(pushType == "liveactivity") { return reject(.unknown("InvalidPayload")) }
        return Result(verdict: .accept, token: token, authenticated: true)
    }

    static func isDeviceToken(_ token: String) -> Bool {
        token.utf8.count % 2 == 0 && (16...400).contains(token.utf8.count)
            && token.utf8.allSatisfy {
                ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x61 && $0 <= 0x66) || ($0 >= 0x41 && $0 <= 0x46)
            }
    }

    /// nil when the bearer token is a valid ES256 JWT of a trusted key, younger than an hour, allowed on `topic`.
    func checkProviderToken(_ header: String?, topic: String?) -> APNsReason? {
        guard let header, header.utf8.count > 7,
            header.utf8.prefix(7).elementsEqual("bearer ".utf8, by: { $0 == $1 || ($1 >= 0x61 && $0 == $1 - 0x20) })
        else { return .missingProviderToken }
        let jwt = String(header.utf8.dropFirst(7))!
        let keyID: String
        let issuedAt: Int
        if let known = self.state.verified(token: jwt) {
            (keyID, issuedAt) = known
        } else {
            guard let (kid, iat) = self.verify(jwt) else { return .invalidProviderToken }
            self.state.rememberVerified(token: jwt, keyID: kid, issuedAt: iat)
            (keyID, issuedAt) = (kid, iat)
        }
        if Int(self.now().timeIntervalSince1970) - issuedAt > 3600 { return .expiredProviderToken }
        if let allowed = self.state.key(id: keyID)?.bundleIDs, let topic {
            let bundle =
                topic.hasSuffix(".push-type.liveactivity")
                ? String(topic.dropLast(".push-type.liveactivity".count)) : topic
            if !allowed.contains(bundle) { return .topicDisallowed }
        }
        return nil
    }

    private func verify(_ jwt: String) -> (String, Int)? {
        let parts = jwt.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3,
            let headerData = ProviderTokenMinter.decodeBase64URL(parts[0]),
            let claimsData = ProviderTokenMinter.decodeBase64URL(parts[1]),
            let signatureData = ProviderTokenMinter.decodeBase64URL(parts[2]),
            let header = try? JSONSerialization.jsonObject(with: headerData) as? [String: Any],
            let claims = try? JSONSerialization.jsonObject(with: claimsData) as? [String: Any],
            header["alg"] as? String == "ES256", let kid = header["kid"] as? String,
            let iss = claims["iss"] as? String, let iat = claims["iat"] as? Int,
            let key = self.state.key(id: kid), key.teamID == iss,
            let signature = try? P256.Signing.ECDSASignature(rawRepresentation: signatureData)
        else { return nil }
        let signingInput = Data(jwt.utf8.prefix(parts[0].utf8.count + 1 + parts[1].utf8.count))
        guard key.publicKey.isValidSignature(signature, for: signingInput) else { return nil }
        return (kid, iat)
    }

    static func isValidPayload(_ body: [UInt8], liveActivity: Bool) -> Bool {
        guard let object = try? JSONSerialization.jsonObject(with: Data(body)) as? [String: Any],
            let aps = object["aps"] as? [String: Any]
        else { return false }
        guard liveActivity else { return true }
        guard let event = aps["event"] as? String, ["start", "update", "end"].contains(event),
            aps["timestamp"] is Int
        else { return false }
        if event != "end" && !(aps["content-state"] is [String: Any]) { return false }
        if event == "start" {
            guard aps["attributes-type"] is String, aps["attributes"] is [String: Any], aps["alert"] != nil else {
                return false
            }
        }
        return true
    }
}
