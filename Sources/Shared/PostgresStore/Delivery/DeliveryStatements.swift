/// The named statements of delivery, for `StatementCatalog.all`. The first chunk's statement and the chunk selects
/// of other shapes than `BatchChunkStatement`'s are composed from the push's shape (`PushTargets.chunkSelect`) and not
/// listed.
public enum DeliveryStatements {
    public static let all: [any NamedStatement.Type] = [
        PushReportStatement.self, BatchChunkStatement.self, UpdateChunkRecordStatement.self,
        ChunkRecordByIDStatement<UpdateChunkRecordStatement>.self, EndChunkRecordStatement.self,
        ChunkRecordByIDStatement<EndChunkRecordStatement>.self,
        PushForDeliveryStatement.self, ClaimFanoutStatement.self,
        InsertFanoutBatchesStatement.self, ClaimBatchStatement.self, ReadBatchStatement.self,
        InvalidateStartTokensStatement.self, InvalidateInstanceTokensStatement.self, InsertFailuresStatement.self,
        CountFailuresStatement.self, FailPushStatement.self, StopBatchesStatement.self,
        TrueUpStoppedEstimatesStatement.self, FinishBatchStatement.self, CountFinishedBatchStatement.self,
        FlagSupersedingStatement.self, RaiseSupersededGenStatement.self, ChunksInFlightStatement.self,
        DeclareChunkStatement.self, SupersedersStatement.self, ReachedChannelsStatement.self,
        AttemptStatisticsStatement.self,
    ]
}
