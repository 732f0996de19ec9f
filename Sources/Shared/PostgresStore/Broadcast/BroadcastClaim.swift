/// Whether a push may send its broadcast now (`BroadcastLedger.claim`).
public enum BroadcastClaim: Sendable, Equatable {
    /// This push holds the channel's lease: send, then `BroadcastLedger.record`.
    case claimed
    /// Another push's broadcast to the channel is in flight: wait for its answer (or its lease to lapse).
    case busy
    /// A push accepted later has already been broadcast on the channel: sending this one would show older content.
    case superseded
    /// This push's broadcast was answered before (a re-run after a crash), or the push was cancelled.
    case finished
    /// The name's channel was deleted since the push was accepted.
    case channelGone
}
