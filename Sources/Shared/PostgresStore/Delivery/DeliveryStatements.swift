/// The named statements of delivery and of the push store, for `StatementCatalog.all`. Statements that embed an
/// audience (the first chunk's, `unfinished`, the chunk selects of other shapes, `channels(_:reachedBy:)`) are
/// dynamic and not listed.
public enum DeliveryStatements {
    public static let all: [any NamedStatement.Type] = [
        PushReportStatement.self, BatchChunkStatement.self, UpdateChunkRecordStatement.self,
        EndChunkRecordStatement.self, PushForDeliveryStatement.self, ClaimFanoutStatement.self,
        InsertFanoutBatchesStatement.self, ClaimBatchStatement.self, ReadBatchStatement.self,
        InvalidateStartTokensStatement.self, InvalidateInstanceTokensStatement.self, InsertFailuresStatement.self,
        CountFailuresStatement.self, FailPushStatement.self, StopBatchesStatement.self,
        TrueUpStoppedEstimatesStatement.self, FinishBatchStatement.self, CountFinishedBatchStatement.self,
        FlagSupersedingStatement.self, RaiseSupersededGenStatement.self, ChunksInFlightStatement.self,
        DeclareChunkStatement.self, SupersedersStatement.self,
    ]
}
