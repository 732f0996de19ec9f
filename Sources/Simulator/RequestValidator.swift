import APNsCommon
import APNsTransport
import Crypto
import Foundation

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

    /// `payloadIsValid` is asked only once everything else passed (it may be cached per body). `verifiedToken` is the
    /// connection's own memory of the provider token it presented last.
    func validate(
        _ head: RequestHeaderBlock, bodySize: Int, verifiedToken: inout VerifiedProviderToken?,
        payloadIsValid: (Bool) -> Bool
    ) -> Result {
        guard head.method == "POST" else { return Result(verdict: .reject(.methodNotAllowed), authenticated: false) }
        guard let path = head.path, path.hasPrefix("/3/device/") else {
            return Result(verdict: .reject(.badPath), authenticated: false)
        }
        let token = String(path.dropFirst("/3/device/".count))
        func reject(_ reason: APNsReason, _ authenticated: Bool = true) -> Result {
            Result(verdict: .reject(reason), token: token.isEmpty ? nil : token, authenticated: authenticated)
        }
        guard !token.isEmpty else { return reject(.missingDeviceToken, false) }
        guard Self.isDeviceToken(token) else { return reject(.badDeviceToken, false) }
        let apns = head.apns
        if let reason = self.checkProviderToken(apns.authorization, topic: apns.topic, verified: &verifiedToken) {
            return reject(reason, reason.action != .refreshCredentials)
        }
        guard let topic = apns.topic, !topic.isEmpty else { return reject(.missingTopic) }
        guard let pushType = apns.pushType, Self.knownPushTypes.contains(pushType) else {
            return reject(.invalidPushType)
        }
        if pushType == "liveactivity" && !topic.hasSuffix(".push-type.liveactivity") { return reject(.badTopic) }
        if let priority = apns.priority, priority != "10", priority != "5", priority != "1" {
            return reject(.badPriority)
        }
        if let expiration = apns.expiration, Int(expiration) == nil { return reject(.badExpirationDate) }
        if let id = apns.id, UUID(uuidString: id) == nil { return reject(.badMessageID) }
        if let collapse = apns.collapseID, collapse.utf8.count > 64 { return reject(.badCollapseID) }
        if bodySize == 0 { return reject(.payloadEmpty) }
        if bodySize > 4096 { return reject(.payloadTooLarge) }
        if !payloadIsValid(pushType == "liveactivity") { return reject(.unknown("InvalidPayload")) }
        return Result(verdict: .accept, token: token, authenticated: true)
    }

    static func isDeviceToken(_ token: String) -> Bool {
        var token = token
        return token.withUTF8 { bytes in
            guard bytes.count % 2 == 0, (16...400).contains(bytes.count) else { return false }
            for byte in bytes {
                switch byte {
                case 0x30...0x39, 0x61...0x66, 0x41...0x46: continue
                default: return false
                }
            }
            return true
        }
    }

    /// The token as the simulator counts it: lower-case hex (APNs accepts either case).
    static func lowerCased(deviceToken token: String) -> String {
        var token = token
        let hasUpper = token.withUTF8 { bytes in bytes.contains { $0 >= 0x41 && $0 <= 0x46 } }
        return hasUpper ? token.lowercased() : token
    }

    /// nil when the bearer token is a valid ES256 JWT of a trusted key, younger than an hour, allowed on `topic`.
    /// `verified` remembers the token it last found valid: a client presents one token for thousands of requests, and
    /// comparing the header with the last one is cheaper than the shared table (a lock and a hash of the whole token)
    /// and the key lookup behind it. A key added since invalidates the memory.
    func checkProviderToken(_ header: String?, topic: String?, verified: inout VerifiedProviderToken?) -> APNsReason? {
        guard let header, header.utf8.count > 7,
            header.utf8.prefix(7).elementsEqual("bearer ".utf8, by: { $0 == $1 || ($1 >= 0x61 && $0 == $1 - 0x20) })
        else { return .missingProviderToken }
        let keysVersion = self.state.keysVersion
        if verified?.header != header || verified?.keysVersion != keysVersion {
            verified = nil
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
            verified = VerifiedProviderToken(
                header: header, issuedAt: issuedAt, bundleIDs: self.state.key(id: keyID)?.bundleIDs,
                keysVersion: keysVersion)
        }
        guard let token = verified else { return .invalidProviderToken }
        if Int(self.now().timeIntervalSince1970) - token.issuedAt > 3600 { return .expiredProviderToken }
        if let allowed = token.bundleIDs, let topic {
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

/// A provider token one connection presented and the simulator verified, with what the later checks need.
struct VerifiedProviderToken {
    /// The whole `authorization` header it came in.
    var header: String
    var issuedAt: Int
    /// The key's allowed bundle ids (nil: any).
    var bundleIDs: Set<String>?
    /// `SimulatorState.keysVersion` when it was verified.
    var keysVersion: Int
}
