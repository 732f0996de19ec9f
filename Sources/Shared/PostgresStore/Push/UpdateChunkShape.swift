/// An update or an end of a name, to `all`, without broadcast delivery, update budgets or the rows' places (each of
/// those adds to the select's text): a fan-out's usual chunk select.
enum UpdateChunkShape: ChunkSelectShape {
    static let name = "lagw_batch_chunk_v1"
    static let sql = Self.select(
        of: PushTargets(appID: 0, event: .update, name: "", attributesType: nil, audience: .all))

    static func fits(_ targets: PushTargets, rowRefs: Bool) -> Bool {
        !rowRefs && targets.event != .start && targets.name != nil && targets.audience == .all
            && targets.broadcastChannelID == nil && targets.updateBudgets.isEmpty
    }
}
