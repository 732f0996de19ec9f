import Foundation
import PostgresNIO

/// CITUS_URL: a bench against a Citus coordinator's database instead of a private PostgreSQL (docs/scaling.md says
/// how to start one: the coordinator and its workers with `shared_preload_libraries = 'citus,pg_stat_statements'`,
/// the `citus` extension created, the workers added). The database is emptied (`sql/citus/empty.sql`), migrated
/// (`gateway migrate`) and distributed by app (`sql/citus/distribute.sql`). PostgreSQL's CPU is not counted (the
/// nodes are not the bench's processes): it reads 0.
enum ExternalCitus {
    static func prepare(_ raw: String, stack: BenchStack) async throws -> BenchDatabase {
        guard let url = URL(string: raw), let host = url.host, let port = url.port else {
            throw BenchError("CITUS_URL must be postgres://postgres@HOST:PORT/DATABASE, not '\(raw)'")
        }
        let name = url.path.split(separator: "/").first.map(String.init) ?? "postgres"
        stack.export(["DATABASE_URL": raw])
        let db = BenchDatabase(host: host, port: port, database: name)
        try await Self.script(raw, "empty")
        try await stack.migrate()
        try await Self.script(raw, "distribute", transaction: true)
        try await db.run("CREATE EXTENSION IF NOT EXISTS pg_stat_statements")
        let nodes = try await db.text("SELECT string_agg(nodeport::text, ', ' ORDER BY groupid) FROM pg_dist_node")
        print("== Citus: nodes on ports \(nodes) (the coordinator first); the tables distributed by app")
        return db
    }

    /// `psql -f sql/citus/<name>.sql`, as docs/scaling.md runs it.
    static func script(_ url: String, _ name: String, transaction: Bool = false) async throws {
        let path = try Repository.find().root + "/sql/citus/\(name).sql"
        _ = try await ChildProcess.output(
            "/usr/bin/psql", [url, "-q", "-v", "ON_ERROR_STOP=1"] + (transaction ? ["-1"] : []) + ["-f", path])
    }
}
