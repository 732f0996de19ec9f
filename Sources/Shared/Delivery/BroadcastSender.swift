import APNsBroadcast
import BroadcastManagement
import Foundation
import LiveActivitiesCore
import Logging
import Metrics
import PostgresStore

/// Sends a push's one broadcast request (delivery `broadcast` or `both`): takes the channel's turn
/// (`BroadcastLedger`), sends, retries what Apple asks to retry, records Apple's answer on the push.
struct BroadcastSender: Sendable {
    let ledger: BroadcastLedger
    let client: APNsBroadcastClient
    let deliveries: DeliveryConfigCache
    let settings: DeliverySettings
    let metrics: any MetricsFactory

    /// How long a push waits for the broadcast in flight before it on the same channel (beyond its lease, the
    /// channel is free again).
    static let turnDeadline: Duration = BroadcastLedger.lease + .seconds(5)

    func send(_ push: PushForDelivery, logger: Logger) async throws {
        guard let channelID = push.route.channelID else { return }
        let clock = ContinuousClock()
        let deadline = clock.now + Self.turnDeadline
        var wait: Duration = .milliseconds(2)
        var claim: (BroadcastClaim, seq: Int64)
        while true {
            claim = try await self.ledger.claim(pushID: push.id, appID: push.appID, channelID: channelID)
            guard claim.0 == .busy, clock.now < deadline else { break }
            try await Task.sleep(for: wait)
            wait = min(wait * 2, .milliseconds(50))
        }
        let seq = claim.seq
        switch claim.0 {
        case .finished:
            return
        case .superseded:
            self.count("superseded")
            try await self.ledger.record(
                pushID: push.id, appID: push.appID, channelID: channelID, seq: seq, status: nil,
                reason: BroadcastLedger.supersededReason, uniqueID: nil)
            return
        case .channelGone:
            self.count("error")
            try await self.ledger.record(
                pushID: push.id, appID: push.appID, channelID: channelID, seq: seq, status: nil,
                reason: "channel_deleted", uniqueID: nil)
            return
        case .busy, .claimed:
            break  // busy past the deadline: the holder's lease has lapsed by now, and this push goes
        }
        guard let (bundleID, credentials) = try await self.deliveries.configuration(appID: push.appID) else { return }
        let started = clock.now
        var answer: (status: Int?, reason: String?, uniqueID: String?) = (nil, "no_answer", nil)
        var sentAt = Date()
        for attempt in 1...self.settings.maxAttempts {
            sentAt = Date()
            do {
                let reply = try await self.client.send(
                    bundleID: bundleID, channelID: channelID, priority: Int(push.priority),
                    expiration: push.expiration, requestID: push.id.uuidString.lowercased(), body: push.payload,
                    credentials: credentials)
                answer = (reply.status, reply.reason, reply.uniqueID)
                // Apple asks to retry 429, 500 and 503; everything else is final.
                guard [429, 500, 503].contains(reply.status) else { break }
            } catch {
                answer = (nil, "transport:\(error)", nil)
            }
            if attempt < self.settings.maxAttempts {
                try await Task.sleep(for: self.settings.backoff.delay(attempt: attempt))
            }
        }
        Timer(label: "worker_push_phase_seconds", dimensions: [("phase", "broadcast")], factory: self.metrics)
            .recordInterval(clock.now - started)
        self.count(answer.status == 200 ? "accepted" : answer.status == nil ? "error" : "rejected")
        if answer.status != 200 {
            logger.warning(
                "broadcast refused",
                metadata: ["status": "\(answer.status.map(String.init) ?? "none")", "reason": "\(answer.reason ?? "")"])
        }
        try await self.ledger.record(
            pushID: push.id, appID: push.appID, channelID: channelID, seq: seq, status: answer.status,
            reason: answer.reason, uniqueID: answer.uniqueID, sentAt: sentAt)
    }

    private func count(_ outcome: String) {
        Counter(label: "worker_apns_broadcasts_total", dimensions: [("outcome", outcome)], factory: self.metrics)
            .increment()
    }
}
