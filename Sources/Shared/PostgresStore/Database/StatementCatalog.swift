/// Every named statement the stores run. The schema test prepares each one against the migrated schema and `EXPLAIN`s
/// it; a statement missing from here is a statement nobody checks.
public enum StatementCatalog {
    public static let all: [any NamedStatement.Type] = []
}
