import Foundation
import LiveActivitiesCore
import PostgresStore

/// Which unfinished pushes of its name a starting push supersedes, and which supersede it: `PushOrder` alone decides.
/// Pure; `PushSupersession` reads the unfinished pushes and writes what is decided here.
public struct Supersession: Sendable, Equatable {
    /// The unfinished pushes the starting push makes its targets its own.
    public var older: [UUID]
    /// The unfinished pushes that do so to the starting push (accepted after it, fanned out before it).
    public var newer: [UUID]

    public init(
        push order: PushOrder, event: LiveActivityNotification.Event, among unfinished: [DeliveryLedger.UnfinishedPush]
    ) {
        self.older = unfinished.filter { order.supersedes($0.order, $0.event, as: event) }.map(\.id)
        self.newer = unfinished.filter { $0.order.supersedes(order, event, as: $0.event) }.map(\.id)
    }

    public var isEmpty: Bool { self.older.isEmpty && self.newer.isEmpty }
}
