/// How one push goes out, decided once when it is accepted (or when a schedule fires): by tokens, as one broadcast
/// request, or both. Pure: the store looks up the name's channel, this decides and checks the rules that depend on it.
public enum DeliveryRoute: Sendable, Equatable {
    case tokens
    case broadcast(channelID: String)
    case both(channelID: String)

    /// As `pushes.delivery` and the report name it.
    public var name: String {
        switch self {
        case .tokens: "tokens"
        case .broadcast: "broadcast"
        case .both: "both"
        }
    }

    public var channelID: String? {
        switch self {
        case .tokens: nil
        case .broadcast(let id), .both(let id): id
        }
    }

    /// The largest APNs body the route allows. Apple: a broadcast payload may be up to 5,120 bytes; a request to a
    /// device token up to 4,096. `both` sends the one body both ways.
    public var maxPayloadBytes: Int {
        if case .broadcast = self { return APNsPayload.broadcastMaxBytes }
        return APNsPayload.maxBytes
    }

    public init?(name: String, channelID: String?) {
        switch (name, channelID) {
        case ("tokens", _): self = .tokens
        case ("broadcast", let id?): self = .broadcast(channelID: id)
        case ("both", let id?): self = .both(channelID: id)
        default: return nil
        }
    }

    /// With `both`, the channel whose subscribers the token requests leave out (they get the broadcast).
    public var excludedChannel: String? {
        if case .both(let id) = self { return id }
        return nil
    }
}
