/// The body of `PUT /api/broadcast-channels/{name}`: `{"storage":"none"|"latest"}` (default `none`).
public struct BroadcastChannelRequest: Sendable, Equatable, Decodable {
    public var storage: BroadcastStorage

    public init(storage: BroadcastStorage = .noStorage) { self.storage = storage }

    enum CodingKeys: String, CodingKey, CaseIterable { case storage }

    public init(from decoder: any Decoder) throws {
        try decoder.rejectUnknownKeys(CodingKeys.self)
        let c = try decoder.container(keyedBy: CodingKeys.self)
        guard let raw = try c.decodeIfPresent(String.self, forKey: .storage) else {
            self.storage = .noStorage
            return
        }
        guard let storage = BroadcastStorage(rawValue: raw) else {
            throw ValidationError(path: decoder.path("storage"), rule: "must be \"none\" or \"latest\"")
        }
        self.storage = storage
    }
}
