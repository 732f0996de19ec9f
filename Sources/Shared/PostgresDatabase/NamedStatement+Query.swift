import PostgresNIO

extension NamedStatement {
    /// The statement with `value`s bound to `$1`, `$2`... in order, run unprepared (PostgreSQL parses and plans it per
    /// call, with the values at hand). A parameter that may be NULL takes `PostgresBindings` and `bound(_:)`.
    package static func query<each Value: PostgresThrowingDynamicTypeEncodable>(_ value: repeat each Value) throws
        -> PostgresQuery
    {
        var bindings = PostgresBindings()
        repeat try bindings.append(each value)
        return PostgresQuery(unsafeSQL: Self.sql, binds: bindings)
    }

    /// The statement with `bindings` for its parameters.
    package static func bound(_ bindings: PostgresBindings) -> PostgresQuery {
        PostgresQuery(unsafeSQL: Self.sql, binds: bindings)
    }
}
