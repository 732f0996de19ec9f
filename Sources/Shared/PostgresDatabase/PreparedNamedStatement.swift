import PostgresNIO

/// A `NamedStatement` run as a prepared statement under its own name, with values bound at the call; its rows come
/// back undecoded, for the statement's own row types. PostgreSQL parses it once per connection and, after five custom
/// plans, reuses a generic plan where that looks no dearer than they did; a statement run unprepared is planned at
/// every call. During a million-target fan-out, with the worker's statements so prepared, PostgreSQL made 1,300-2,000
/// plans in all where it had made 3,400-4,400 (docs/benchmarks.md). The job queue's claim still takes a custom plan
/// where its lists of kinds and ids left out are empty or its data skewed: its generic plan costs a list of unknown
/// values as if it excluded most jobs.
///
/// For statements whose text is one constant; a select composed per audience stays unprepared. PostgresNIO prepares it
/// with the types of the first call's values, as it sends an unprepared statement's, and a NULL carries no type: a
/// parameter that may be NULL takes a cast in the text (`$3::uuid`), as every such parameter here does.
public struct PreparedNamedStatement<Statement: NamedStatement>: PostgresPreparedStatement {
    public static var name: String { Statement.name }
    public static var sql: String { Statement.sql }
    public typealias Row = PostgresRow

    let bindings: PostgresBindings

    public func makeBindings() throws -> PostgresBindings { self.bindings }

    public func decodeRow(_ row: PostgresRow) throws -> PostgresRow { row }
}

extension NamedStatement {
    /// The statement with `value`s bound to `$1`, `$2`... in order, to run prepared (`DatabaseClient.execute`). A
    /// parameter that may be NULL takes `PostgresBindings` and `prepared(bindings:)`.
    package static func prepared<each Value: PostgresThrowingDynamicTypeEncodable>(_ value: repeat each Value) throws
        -> PreparedNamedStatement<Self>
    {
        var bindings = PostgresBindings()
        repeat try bindings.append(each value)
        return PreparedNamedStatement(bindings: bindings)
    }

    /// The statement with `bindings` for its parameters, to run prepared.
    package static func prepared(bindings: PostgresBindings) -> PreparedNamedStatement<Self> {
        PreparedNamedStatement(bindings: bindings)
    }
}
