import Foundation
import LiveActivitiesCore
import PostgresNIO

/// The parameters of a chunk's record (`UpdateChunkRecordStatement`, `EndChunkRecordStatement`: the same `$1`...`$31`),
/// made from the chunk's outcome.
struct ChunkRecordBindings {
    let bindings: PostgresBindings

    /// `deferStamps`: an update's instance stamps go to one pending `delivery_stamps` row instead of the instances.
    /// `last`: nothing follows the chunk in its batch (the next chunk is not declared in flight).
    init(
        _ outcome: ChunkOutcome, push: PushForDelivery, seq: Int32, deferStamps: Bool, last: Bool, runner: UUID?
    ) {
        let event = push.targets.event
        let later = deferStamps && event == .update ? outcome.accepted : []
        // The channels the deferred row holds, first to last (answers arrive in any order).
        let channels = later.map(\.channelID)
        let firstChannel = channels.min { $0.precedes($1) } ?? outcome.cursor
        let lastChannel = channels.max { $0.precedes($1) } ?? outcome.cursor
        let stamped = event == .start || !later.isEmpty ? [] : outcome.accepted
        // An accepted start is an attempt, confirmed when the channel registers the name within the app's window.
        let attempts = event == .start ? outcome.accepted : []
        var binds = PostgresBindings(capacity: 31)
        binds.append(push.id)  // $1
        binds.append(push.appID)  // $2
        binds.append(push.targets.name ?? "")  // $3
        binds.append(push.targets.attributesType ?? "")  // $4
        binds.append(attempts.map(\.channelID))  // $5
        binds.append(attempts.map(\.token))  // $6
        // A row is updated once per statement: instances stamped here count their budget in the same update ($15).
        binds.append(stamped.isEmpty ? outcome.budgeted : [])  // $7
        binds.append(push.timestamp)  // $8
        binds.append(push.seq)  // $9
        binds.append(later.map(\.instanceID))  // $10
        binds.append(firstChannel)  // $11
        binds.append(lastChannel)  // $12
        binds.append(stamped.map(\.row))  // $13
        binds.append(stamped.map(\.instanceID))  // $14
        binds.append(stamped.isEmpty ? [] : outcome.budgeted)  // $15
        binds.append(outcome.cursor)  // $16
        binds.append(Int32(outcome.processed))  // $17
        binds.append(Int64(outcome.sent))  // $18
        binds.append(Int64(outcome.accepted.count))  // $19
        binds.append(Int64(outcome.failures.count))  // $20
        binds.append(Int64(outcome.skipped))  // $21
        binds.append(Int64(outcome.superseded))  // $22
        binds.append(Int64(outcome.alreadyActive))  // $23
        binds.append(Int64(outcome.startBudget))  // $24
        binds.append(Int64(outcome.suspectToken))  // $25
        binds.append(Int64(outcome.downgraded))  // $26
        if outcome.sent > 0 { binds.append(outcome.sendStartedAt) } else { binds.appendNull() }  // $27
        binds.append(last)  // $28
        binds.append(DeliveryLedger.leaseSeconds)  // $29
        binds.append(seq)  // $30
        if let runner { binds.append(runner) } else { binds.appendNull() }  // $31
        self.bindings = binds
    }
}
