import Foundation
import PostgresStore
import Testing

/// Each job kind's payload is one Codable type: what an enqueuer encodes is what the handler decodes, and a payload
/// of another shape can never run.
@Suite struct JobPayloadContractTests {
    @Test func aBatchJobRoundTripsThroughItsRequestAndClaim() throws {
        let id = UUID()
        let request = try JobRequest(PushBatchJob(pushID: id, batch: 7), appID: 3)
        #expect(request.kind == .pushBatch && request.kind.rawValue == "push.batch")
        #expect(request.payload == #"{"push_id":"\#(id.uuidString.lowercased())","seq":7}"#)
        let claimed = ClaimedJob(
            id: 1, kind: request.kind, appID: 3, payload: request.payload, attempt: 1, maxAttempts: 8)
        #expect(try claimed.payload(as: PushBatchJob.self) == PushBatchJob(pushID: id, batch: 7))
    }

    @Test func aPayloadOfAnotherShapeIsAPermanentError() {
        let claimed = ClaimedJob(
            id: 1, kind: .pushBatch, appID: 3, payload: #"{"schedule_id":"x"}"#, attempt: 1, maxAttempts: 8)
        #expect(throws: JobError.self) { try claimed.payload(as: PushBatchJob.self) }
    }

    @Test func aScheduleFireJobIsDeduplicatedPerSchedule() throws {
        let id = UUID()
        let request = try JobRequest(
            ScheduleFireJob(scheduleID: id), appID: 1, dedupeKey: ScheduleFireJob.dedupeKey(id))
        #expect(request.kind == .scheduleFire)
        #expect(request.dedupeKey == "schedule:\(id.uuidString.lowercased())")
    }
}
