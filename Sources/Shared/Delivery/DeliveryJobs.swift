import APNsBroadcast
import APNsTransport
import BroadcastManagement
import LiveActivitiesCore
import Logging
import Metrics
import PostgresStore

/// Every job handler of the worker, by kind: the one place a kind meets its handler.
public enum DeliveryJobs {
    /// `express`: the pool of the job runner's express lane, for everything but fan-out batches; `database` is theirs.
    public static func handlers(
        database: Database, express: Database, masterKey: MasterKey, metrics: any MetricsFactory, apns: APNsClient,
        broadcast: APNsBroadcastClient, settings: DeliverySettings
    ) -> [JobKind: any JobHandler] {
        let deliveries = DeliveryConfigCache(apps: PostgresAppStore(database: express, masterKey: masterKey))
        let budgets = UpdateBudgetCache(database: express)
        let sender = PushBatchHandler(
            database: database, ledger: DeliveryLedger(database: database), apns: apns, deliveries: deliveries,
            settings: settings, metrics: metrics, budgets: budgets)
        let ledger = DeliveryLedger(database: express)
        let fanoutSender = PushBatchHandler(
            database: express, ledger: ledger, apns: apns, deliveries: deliveries, settings: settings,
            metrics: metrics, budgets: budgets)
        let channels = BroadcastChannels(
            database: express, masterKey: masterKey, client: broadcast, logger: Logger(label: "worker.broadcast"))
        // The recurring jobs: the worker queues each one's current slot at start-up (`RecurringJob`).
        let recurring: [any RecurringJob] = [
            BroadcastMaintenance(channels: channels, database: database),
            RegistryPurge(database: database),
            RetentionPurge(database: database),
            IdleActivityEnder(database: database),
            ActivityRenewer(database: database),
            StartSettlement(database: database, metrics: metrics),
            DeliveryStampFolding(database: database),
        ]
        let onDemand: [JobKind: any JobHandler] = [
            ScheduleFireJob.kind: ScheduleFiring(database: database),
            PushFanoutJob.kind: PushFanoutHandler(
                database: express, ledger: ledger, settings: settings, metrics: metrics, sender: fanoutSender,
                broadcaster: BroadcastSender(
                    ledger: BroadcastLedger(database: express), client: broadcast, deliveries: deliveries,
                    settings: settings, metrics: metrics)),
            PushBatchJob.kind: sender,
        ]
        return recurring.reduce(into: onDemand) { $0[type(of: $1).kind] = $1 }
    }
}
