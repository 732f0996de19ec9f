import Foundation
import LiveActivitiesCore
import PostgresNIO
import Testing

@testable import PostgresStore

/// What an app launch asks of the device API (a channel's registration, its secret's check, an activity tracked with
/// its end time, a push-to-start token, the reconcile after a relaunch, a tap's launch, an update it schedules under an
/// `Idempotency-Key`, an untrack) runs as prepared statements: unprepared, PostgreSQL planned each of them at
/// every call, for as long as it ran them or longer.
@Suite struct DeviceAPIPreparedStatementTests {
    @Test func aLaunchsStatementsArePreparedOnTheirConnection() async throws {
        try await GatewayHarness.run { gw in
            let app = try await gw.createApp()
            let appID = try await gw.database.scalar("SELECT id FROM apps WHERE app_key = \(app.key)", as: Int64.self)
            try await withDatabase(gw.databaseURL, maxConnections: 1) { single in
                let channels = PostgresChannelStore(database: single)
                var registration = ChannelRegistration(installID: "install-1", optIn: true, tags: ["gold"])
                guard
                    case .created(let id, let secret) = try await channels.register(
                        appID: appID, registration, proof: .device(digest: nil))
                else {
                    Issue.record("the first registration did not create the channel")
                    return
                }
                // The launch after: the same install id, with the channel's secret (a locale, no tags this time).
                let proof = ChannelSecret.deviceProof(header: secret)
                registration.tags = nil
                registration.locale = "fr_FR"
                #expect(try await channels.register(appID: appID, registration, proof: proof) == .updated(id))
                #expect(try await channels.verify(appID: appID, channelID: id, proof: proof))
                #expect(try await !channels.verify(appID: appID, channelID: id, proof: .device(digest: "00")))

                let activities = PostgresActivityStore(database: single)
                let token = String(repeating: "ab", count: 32)
                // An activity tracked with an end time, twice (the second moves its `end_at` schedule), then a tap.
                let now = Int64(Date().timeIntervalSince1970)
                for endAt in [now + 3600, now + 7200] {
                    let tracking = ActivityTracking(
                        attributesType: "MatchAttributes", token: token, systemActivityID: "sys-1", endAt: endAt)
                    _ = try await activities.track(appID: appID, channelID: id, name: "match", tracking, proof: proof)
                }
                let schedules = PostgresScheduleStore(database: single)
                _ = try await schedules.launch(
                    appID: appID, channelID: id, systemActivityID: "sys-1", idempotencyKey: nil)
                // A device-scheduled update under an `Idempotency-Key`, then its retry (answered as stored).
                let update = try JSONDecoder().decode(
                    ActivityUpdateRequest.self, from: Data(#"{"offset":600,"content_state":{"n":1}}"#.utf8))
                let first = try await schedules.scheduleUpdate(
                    appID: appID, channelID: id, name: "match", update, now: Date(), idempotencyKey: "u-1")
                let retry = try await schedules.scheduleUpdate(
                    appID: appID, channelID: id, name: "match", update, now: Date(), idempotencyKey: "u-1")
                #expect(retry.id == first.id)
                let set = try await activities.setPushToStart(
                    appID: appID, channelID: id, attributesType: "MatchAttributes",
                    PushToStartRegistration(token: token))
                #expect(set == .created)
                #expect(
                    try await activities.deletePushToStart(
                        appID: appID, channelID: id, attributesType: "MatchAttributes")
                        == 1)
                #expect(
                    try await activities.reconcile(
                        appID: appID, channelID: id, keeping: ["sys-1"], attributesTypes: nil)
                        == 0)
                let ended = try await activities.untrack(appID: appID, channelID: id, name: "match", ActivityEnd())
                #expect(ended.ended == 1)

                let names: [String] = [
                    ChannelStatements.SecretByInstall.name, ChannelStatements.Insert.name,
                    ChannelStatements.LockByInstall.name, ChannelStatements.ClaimSecret.name,
                    ChannelStatements.Update.name, ChannelStatements.DeleteTagGroups.name,
                    ChannelStatements.InsertTags.name, TenancyStatements.TagQuota.name, ChannelStatements.Verify.name,
                    RegistryStatements.SetPushToStart.name, RegistryStatements.DeletePushToStart.name,
                    RegistryStatements.Reconcile.name, RegistryStatements.Untrack.name, TrackStatement.name,
                    RegistryStatements.LockChannel.name, RegistryStatements.MoveEndSchedule.name,
                    RegistryStatements.InsertEndSchedule.name, RegistryStatements.MoveEndScheduleJob.name,
                    ScheduleStatements.RecordLaunch.name, ActivityJobStatements.ClaimOperation.name,
                    ScheduleStatements.FindActivity.name, TenancyStatements.PendingUpdatesQuota.name,
                    ScheduleStatements.InsertActivityUpdate.name, ActivityJobStatements.StoreOperationAnswer.name,
                    ActivityJobStatements.StoredOperationAnswer.name,
                ]
                var prepared: [String] = []
                for try await name in try await single.client.query(
                    "SELECT name FROM pg_prepared_statements WHERE name = ANY(\(names)) ORDER BY name"
                ).decode(String.self) { prepared.append(name) }
                #expect(prepared == names.sorted())
            }
        }
    }
}
