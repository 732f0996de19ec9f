import Crypto
import Foundation
import Synchronization

/// One provider token per (team, key id, signing key), shared by every connection and request, refreshed after
/// `refreshAfter` (Apple: between 20 and 60 minutes), and re-minted at most once per rejected token, and only
/// for a token at least a minute old.
public final class ProviderTokenCache: Sendable {
    public struct Key: Hashable, Sendable {
        public var teamID: String
        public var keyID: String
        /// `APNsSigningKey.fingerprint`: the ids alone are not secret.
        public var fingerprint: String
    }

    struct Entry {
        var token: String
        var issuedAt: Date
    }

    /// A token as a connection keeps it: valid for it while the cache has not changed since and it is fresh.
    package struct Held {
        package var token: String
        var freshUntil: Date
        var version: Int
    }

    private let entries = Mutex<[Key: Entry]>([:])
    private let minted = Atomic<Int>(0)
    /// Bumped under the lock whenever a token is minted or dropped: what lets a connection keep its token without
    /// the lock and the hashed lookup per request.
    private let version = Atomic<Int>(0)
    let now: @Sendable () -> Date
    let refreshAfter: TimeInterval

    /// `now` is injectable so tests can move time; `refreshAfter` is clamped to Apple's 20-60 minutes.
    public init(refreshAfter: Duration = .seconds(50 * 60), now: @escaping @Sendable () -> Date = { Date() }) {
        self.now = now
        let (seconds, attoseconds) = refreshAfter.components
        self.refreshAfter = min(max(Double(seconds) + Double(attoseconds) / 1e18, 20 * 60), 60 * 60)
    }

    /// How many tokens were minted (for metrics and tests).
    public var mintCount: Int { self.minted.load(ordering: .relaxed) }

    public func token(teamID: String, keyID: String, signingKey: APNsSigningKey) throws -> String {
        try self.held(teamID: teamID, keyID: keyID, signingKey: signingKey).token
    }

    /// The token to send with, and what `isCurrent` needs to tell whether it still is.
    package func held(teamID: String, keyID: String, signingKey: APNsSigningKey) throws -> Held {
        let key = Key(teamID: teamID, keyID: keyID, fingerprint: signingKey.fingerprint)
        let now = self.now()
        return try self.entries.withLock { entries in
            if let entry = entries[key], now.timeIntervalSince(entry.issuedAt) < self.refreshAfter {
                return Held(
                    token: entry.token, freshUntil: entry.issuedAt.addingTimeInterval(self.refreshAfter),
                    version: self.version.load(ordering: .relaxed))
            }
            let token = try ProviderTokenMinter.mint(
                teamID: teamID, keyID: keyID, key: signingKey.privateKey, issuedAt: now)
            entries[key] = Entry(token: token, issuedAt: now)
            self.minted.add(1, ordering: .relaxed)
            let version = self.version.add(1, ordering: .relaxed).newValue
            return Held(token: token, freshUntil: now.addingTimeInterval(self.refreshAfter), version: version)
        }
    }

    /// Whether `held` is still the token `held(...)` would return: nothing minted or dropped since, and not due for
    /// a refresh. (Another key's mint also counts as a change: the holder asks again, once.)
    package func isCurrent(_ held: Held) -> Bool {
        self.version.load(ordering: .relaxed) == held.version && self.now() < held.freshUntil
    }

    /// A token APNs refused is dropped only once it is this old: a key APNs does not accept (or a clock it
    /// disagrees with) gets a new token at most once a minute, not one per request. A new token does not mend
    /// either, and APNs answers `TooManyProviderTokenUpdates` to tokens refreshed too often.
    public static let refusedTokenMinimumAge: TimeInterval = 60

    /// APNs refused `token` (expired or invalid). Returns whether a retry will carry another token: the cache
    /// already holds a newer one, or it drops this one now so that the next request mints. Many requests refused
    /// with one token cause one re-mint, not one each.
    @discardableResult
    public func invalidate(token: String, teamID: String, keyID: String, signingKey: APNsSigningKey) -> Bool {
        let key = Key(teamID: teamID, keyID: keyID, fingerprint: signingKey.fingerprint)
        let now = self.now()
        return self.entries.withLock { entries in
            guard let entry = entries[key], entry.token == token else { return true }
            guard now.timeIntervalSince(entry.issuedAt) >= Self.refusedTokenMinimumAge else { return false }
            entries[key] = nil
            self.version.add(1, ordering: .relaxed)
            return true
        }
    }
}
