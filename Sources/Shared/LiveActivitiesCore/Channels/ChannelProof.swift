/// What a call on a channel proves: the master secret may act on every channel of its app; a device (the app secret,
/// which anyone can extract from the app) must also present the channel's own secret, `X-Channel-Secret`, which the
/// store compares by its SHA-256 (`digest`, hex; nil when the call presented none). A channel created before channel
/// secrets has none, and takes a device's call without one until a registration claims it.
public enum ChannelProof: Sendable, Equatable {
    case server
    case device(digest: String?)
}
