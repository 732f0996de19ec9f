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
        // The wire form operators query (`payload->>'push_id'`): lowercase ids, the batch under "seq".
        let json = try JSONSerialization.jsonObject(with: Data(request.payload.utf8)) as? [String: Any]
        #expect(json?["push_id"] as? String == id.uuidString.lowercased() && json?["seq"] as? Int == 7)
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
