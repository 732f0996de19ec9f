import Foundation
import LiveActivitiesCore
import PostgresNIO

/// A statement over push targets whose one variable part is the push's audience: its text is a constant with
/// `{audience}` where the audience's predicate over the target row `t` goes (`Audience.predicate`, an expression tree
/// of the push's own, whose values are bound after the statement's parameters, `app` among them). The catalogued
/// `sql` is the statement for every channel (`TRUE`): the EXPLAIN test checks all of it but the predicate.
protocol AudienceStatement: NamedStatement {
    static var template: String { get }
    /// The parameter that is the app, which an audience of named users compares with.
    static var app: String { get }
}

extension AudienceStatement {
    static var app: String { "$1" }

    static var sql: String { Self.sql(audience: "TRUE") }

    static func sql(audience: String) -> String { Self.template.replacingOccurrences(of: "{audience}", with: audience) }

    /// The statement for `audience`, with `bindings` for its own parameters.
    static func query(_ bindings: PostgresBindings, audience: Audience) -> PostgresQuery {
        var sql = SQLBuilder(binds: bindings)
        let predicate = audience.predicate(&sql, app: Self.app)
        return PostgresQuery(unsafeSQL: Self.sql(audience: predicate), binds: sql.binds)
    }
}
