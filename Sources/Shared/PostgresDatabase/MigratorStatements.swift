import PostgresNIO

/// The migrator's bookkeeping (`Migrator`). The table itself is made by plain DDL (`CREATE TABLE IF NOT EXISTS`),
/// which cannot be prepared; the migrations and views are files of their own.
public enum MigratorStatements {
    public static let all: [any NamedStatement.Type] = [
        Lock.self, Checksum.self, LiftStatementTimeout.self, Record.self, CurrentVersion.self,
    ]

    /// Waits for the migrator's lock `$1` (`Migrator.lockID`), held until the transaction ends: concurrent `migrate`
    /// runs (several pods starting at once) take turns.
    public enum Lock: NamedStatement {
        public static let name = "lagw_migrator_lock"
        public static let sql = "SELECT pg_advisory_xact_lock($1)"
    }

    /// The checksum of migration `$1`, if it was applied.
    public enum Checksum: NamedStatement {
        public static let name = "lagw_migrator_checksum"
        public static let sql = "SELECT checksum FROM schema_migrations WHERE version = $1"
    }

    /// `SET LOCAL statement_timeout = 0`, as a statement that prepares: a migration may rewrite a large table, and the
    /// sessions' statement timeout does not apply to it.
    public enum LiftStatementTimeout: NamedStatement {
        public static let name = "lagw_migrator_lift_statement_timeout"
        public static let sql = "SELECT set_config('statement_timeout', '0', true)"
    }

    /// Migration `$1`, named `$2`, with checksum `$3`, is applied.
    public enum Record: NamedStatement {
        public static let name = "lagw_migrator_record"
        public static let sql = "INSERT INTO schema_migrations (version, name, checksum) VALUES ($1, $2, $3)"
    }

    /// The highest applied version, 0 for none.
    public enum CurrentVersion: NamedStatement {
        public static let name = "lagw_migrator_current_version"
        public static let sql = "SELECT coalesce(max(version), 0)::int4 FROM schema_migrations"
    }
}
