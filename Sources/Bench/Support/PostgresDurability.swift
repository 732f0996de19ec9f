/// How the benches' private PostgreSQL keeps what it commits. Durable by default, as production runs it: `fsync`,
/// `synchronous_commit` and `full_page_writes` on. `EPHEMERAL=1` turns the three off (`scripts/pg.sh --ephemeral`):
/// faster commits and less WAL, which no production server runs; the header then says so.
enum PostgresDurability: Sendable {
    case durable
    case ephemeral

    init(_ knobs: Knobs) { self = knobs.optional("EPHEMERAL") == "1" ? .ephemeral : .durable }

    /// The arguments `scripts/pg.sh start` and `standby` take for it.
    var arguments: [String] { self == .ephemeral ? ["--ephemeral"] : [] }

    /// The header line a bench prints before its figures.
    var header: String {
        switch self {
        case .durable:
            "== PostgreSQL durable (fsync, synchronous_commit, full_page_writes on, as in production; EPHEMERAL=1 turns them off)"
        case .ephemeral:
            "== PostgreSQL EPHEMERAL: fsync, synchronous_commit and full_page_writes off (EPHEMERAL=1); no production server runs so"
        }
    }
}
