#if canImport(FoundationNetworking)
    import Foundation
    import FoundationNetworking
    import Synchronization

    /// One request through swift-corelibs-foundation's `URLSession` (Linux) that a cancelled caller leaves at once.
    ///
    /// Two bugs of that `URLSession` meet at cancellation. Its `URLSession.data(for:)` can deadlock when the calling
    /// task is cancelled while the answer arrives (swiftlang/swift-corelibs-foundation#5412: the cancellation handler
    /// holds the task's status lock and waits for the session's work queue, which waits for that lock; seen here as
    /// a hung end-to-end test). And `URLSessionTask.cancel()` racing the task's own completion crashes in the
    /// session's task registry ("Trying to access a behaviour for a task that in not in the registry"; seen once in
    /// CI, with cancel called from another queue). So here the data task is never cancelled: a cancelled caller is
    /// answered `CancellationError` at once and the request finishes on its own (within the session's timeout), its
    /// answer dropped. On Apple's platforms the client uses `data(for:)`, which has neither bug.
    package final class CancellableDataTask: Sendable {
        private typealias Continuation = CheckedContinuation<(Data, URLResponse), any Error>
        /// The caller, until the first of the answer and the cancellation resumes it.
        private let waiting = Mutex<Continuation?>(nil)

        package static func data(for request: URLRequest, on session: URLSession) async throws -> (Data, URLResponse) {
            let box = CancellableDataTask()
            return try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation { (continuation: Continuation) in
                    box.waiting.withLock { $0 = continuation }
                    // Cancelled before the continuation was kept: the handler found nothing to resume.
                    if Task.isCancelled {
                        box.finish(.failure(CancellationError()))
                        return
                    }
                    session.dataTask(with: request) { data, response, error in
                        if let data, let response {
                            box.finish(.success((data, response)))
                        } else {
                            box.finish(.failure(error ?? URLError(.badServerResponse)))
                        }
                    }
                    .resume()
                }
            } onCancel: {
                box.finish(.failure(CancellationError()))
            }
        }

        /// Resumes the caller once; later calls find nothing to resume.
        private func finish(_ result: Result<(Data, URLResponse), any Error>) {
            let continuation = self.waiting.withLock { waiting in
                defer { waiting = nil }
                return waiting
            }
            continuation?.resume(with: result)
        }
    }
#endif
