import APNsBroadcast
import BroadcastManagement
import Foundation
import LiveActivitiesCore
import Logging
import Metrics
import PostgresStore

/// Sends a push's one broadcast request (delivery `broadcast` or `both`): takes the channel's turn
/// (`BroadcastLedger`), sends, retries what Apple asks to retry, records Apple's answer on the push. The decisions
/// are `BroadcastSend`'s; this runs them.
struct BroadcastSender: Sendable {
    let ledger: BroadcastLedger
    let client: APNsBroadcastClient
    let deliveries: DeliveryConfigCache
    let settings: DeliverySettings
    let metrics: any MetricsFactory

    func send(_ push: PushForDelivery, logger: Logger) async throws {
        guard let channelID = push.route.channelID else { return }
        var machine = BroadcastSend(maxAttempts: self.settings.maxAttempts, backoff: self.settings.backoff)
        let clock = ContinuousClock()
        let began = clock.now
        var seq: Int64
        turn: while true {
            let claim = try await self.ledger.claim(pushID: push.id, appID: push.appID, channelID: channelID)
            seq = claim.seq
            switch machine.claimed(claim.0, elapsed: clock.now - began) {
            case .pause(let pause):
                try await Task.sleep(for: pause)
            case .send:
                break turn
            case .stop:
                return
            case .record(let reason, let outcome):
                self.count(outcome)
                try await self.ledger.record(
                    pushID: push.id, appID: push.appID, channelID: channelID, seq: seq, status: nil, reason: reason,
                    uniqueID: nil)
                return
            }
        }
        guard let (bundleID, credentials) = try await self.deliveries.configuration(appID: push.appID) else { return }
        let started = clock.now
        var sentAt: Date
        var answer: BroadcastSend.Answer
        sending: while true {
            sentAt = Date()
            do {
                let reply = try await self.client.send(
                    bundleID: bundleID, channelID: channelID, priority: Int(push.priority),
                    expiration: push.expiration, requestID: push.id.uuidString.lowercased(), body: push.payload,
                    credentials: credentials)
                answer = .init(status: reply.status, reason: reply.reason, uniqueID: reply.uniqueID)
            } catch {
                answer = .init(status: nil, reason: "transport:\(error)", uniqueID: nil)
            }
            switch machine.answered(answer, random: Double.random(in: 0..<1)) {
            case .retry(let pause):
                try await Task.sleep(for: pause)
            case .record(let final):
                answer = final
                break sending
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
