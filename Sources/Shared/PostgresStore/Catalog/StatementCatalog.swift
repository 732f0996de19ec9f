/// Every named statement the stores run. The schema test prepares each one against the migrated schema and `EXPLAIN`s
/// it; a statement missing from here is a statement nobody checks.
public enum StatementCatalog {
    public static let all: [any NamedStatement.Type] = Self.stores.flatMap { $0 }

    /// Each store's statements, as its own file lists them.
    private static let stores: [[any NamedStatement.Type]] = [
        JobQueueStatements.all, RegistryStatements.all, ChannelStatements.all, ScheduleStatements.all,
        TenancyStatements.all, BroadcastStatements.all, DeliveryStatements.all, StampStatements.all,
        UnfinishedStatements.all, PushStatements.all, TargetStatements.all, MigratorStatements.all,
        ContractStatements.all, AppsWithWork.all,
        [PingStatement.self],
    ]
}
