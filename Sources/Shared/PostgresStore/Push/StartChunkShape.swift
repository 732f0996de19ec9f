/// A start to `all`: the push-to-start tokens of an attributes type with the start's holds (`PushTargets.startHold`),
/// whose name, push and `restart` are bound, not spliced. Prepared, its generic plan is kept: the select's `LIMIT` is
/// a parameter, which PostgreSQL costs at a tenth of the range, so the generic plan never looks dearer than a custom
/// one (a literal limit made it choose a custom plan, planned for every chunk, 1.2 ms of 7.5).
enum StartChunkShape: ChunkSelectShape {
    static let name = "lagw_start_chunk_v1"
    static let sql = Self.select(
        of: PushTargets(appID: 0, event: .start, name: "", attributesType: "", audience: .all))

    /// A start's text has no row places, broadcast delivery or update budgets to vary.
    static func fits(_ targets: PushTargets, rowRefs: Bool) -> Bool {
        targets.event == .start && targets.audience == .all
    }
}
