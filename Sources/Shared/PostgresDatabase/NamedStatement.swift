/// A statement with a name: its SQL is one constant, readable where it lives and `EXPLAIN`-able without running the
/// code that uses it. `StatementCatalog.all` lists every one; a test prepares each against the migrated schema and
/// `EXPLAIN`s it. Variants are separate statements with names of their own, never text assembled from flags.
///
/// PostgresNIO's `PostgresPreparedStatement` asks for the same two members, so a prepared statement is one too.
public protocol NamedStatement: Sendable {
    /// Unique among the catalog's statements; a prepared statement's name on the connection.
    static var name: String { get }
    /// The statement, with `$1`, `$2`... for its parameters.
    static var sql: String { get }
}
