#if canImport(FoundationNetworking)
    import Foundation
    import FoundationNetworking
    import Synchronization

    /// One request through swift-corelibs-foundation's `URLSession` (Linux), cancellable without its deadlock.
    ///
    /// Its `URLSession.data(for:)` can deadlock when the calling task is cancelled while the answer arrives
    /// (swiftlang/swift-corelibs-foundation#5412): the cancellation handler holds the task's status lock and waits for
    /// the session's work queue, which holds the queue and waits for that lock to resume the task. Seen here as a hung
    /// end-to-end test under load. A data task with a completion handler, cancelled from another thread than the
    /// cancellation handler's, takes the two locks in one order only.
    package final class CancellableDataTask: Sendable {
        private let state = Mutex<(task: URLSessionDataTask?, cancelled: Bool)>((nil, false))

        package static func data(for request: URLRequest, on session: URLSession) async throws -> (Data, URLResponse) {
            let box = CancellableDataTask()
            return try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation { continuation in
                    let task = session.dataTask(with: request) { data, response, error in
                        if let data, let response {
                            continuation.resume(returning: (data, response))
                        } else {
                            continuation.resume(throwing: error ?? URLError(.badServerResponse))
                        }
                    }
                    box.started(task)
                }
            } onCancel: {
                box.cancel()
            }
        }

        /// Resumes `task`, or cancels it at once when the caller was cancelled before it existed.
        private func started(_ task: URLSessionDataTask) {
            let cancelled = self.state.withLock { state in
                state.task = task
                return state.cancelled
            }
            task.resume()
            if cancelled { Self.cancelElsewhere(task) }
        }

        private func cancel() {
            let task = self.state.withLock { state in
                state.cancelled = true
                return state.task
            }
            if let task { Self.cancelElsewhere(task) }
        }

        /// Off the cancellation handler's thread, which holds the task's status lock.
        private static func cancelElsewhere(_ task: URLSessionDataTask) {
            DispatchQueue.global().async { task.cancel() }
        }
    }
#endif
