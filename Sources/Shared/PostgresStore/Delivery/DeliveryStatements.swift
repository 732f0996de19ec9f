/// The named statements of delivery and of the push store, for `StatementCatalog.all`.
public enum DeliveryStatements {
    public static let all: [any NamedStatement.Type] = [
        PushReportStatement.self, BatchChunkStatement.self, UpdateChunkRecordStatement.self,
        EndChunkRecordStatement.self,
    ]
}
