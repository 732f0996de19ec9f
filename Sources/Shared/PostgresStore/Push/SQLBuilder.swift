import Foundation
import LiveActivitiesCore
import PostgresNIO

/// A SQL text with its `$n` bindings, built up piece by piece (values are always bound, never spliced).
struct SQLBuilder {
    var binds = PostgresBindings()

    mutating func bind<Value: PostgresNonThrowingEncodable>(_ value: Value) -> String {
        self.binds.append(value)
        return "$\(self.binds.count)"
    }
}
