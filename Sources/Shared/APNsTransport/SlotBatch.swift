import APNsCommon
import NIOCore

/// The requests of one submit to one connection slot, answered together: one promise for the lot, not one per
/// request (a fan-out submits thousands at a time; a promise, a future and a callback each cost more than the
/// request's framing). Each request is answered exactly once, by its `SlotCore.Request`; the promise succeeds, in
/// request order, when the last one is. Lives on the slot's event loop.
final class SlotBatch {
    let requests: ArraySlice<APNsRequest>
    let credentials: APNsCredentials
    let deadline: NIODeadline
    private let promise: EventLoopPromise<[APNsClient.Result]>
    private var results: [APNsClient.Result]
    private var unanswered: Int

    init(
        requests: ArraySlice<APNsRequest>, credentials: APNsCredentials, deadline: NIODeadline,
        promise: EventLoopPromise<[APNsClient.Result]>
    ) {
        self.requests = requests
        self.credentials = credentials
        self.deadline = deadline
        self.promise = promise
        // Every slot is overwritten by its request's answer before the promise completes.
        self.results = Array(repeating: .failure(.connectionLost), count: requests.count)
        self.unanswered = requests.count
        if requests.isEmpty { promise.succeed([]) }
    }

    /// The answer to `requests[index]` (an index of the slice).
    func answer(_ index: Int, _ result: APNsClient.Result) {
        assert(self.unanswered > 0, "request \(index) answered after its batch completed")
        self.results[index - self.requests.startIndex] = result
        self.unanswered -= 1
        if self.unanswered == 0 { self.promise.succeed(self.results) }
    }
}
