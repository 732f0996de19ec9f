import NIOCore

/// Deadlines and liveness of a slot: every request fails at its deadline, whether it waits for a stream or is in
/// flight, and an idle connection is PINGed (closed when the PING goes unanswered).
extension SlotCore {
    /// Starts the 100 ms tick that fails requests past their deadline and keeps the connection's liveness.
    func startSweepIfNeeded() {
        guard self.sweep == nil else { return }
        let bound = NIOLoopBound(self, eventLoop: self.eventLoop)
        self.sweep = self.eventLoop.scheduleRepeatedTask(initialDelay: .milliseconds(100), delay: .milliseconds(100)) {
            _ in bound.value.sweepTick()
        }
    }

    /// Fails expired requests (resetting their streams), then PINGs an idle connection or closes one whose PING
    /// went unanswered.
    func sweepTick() {
        let now = NIODeadline.now()
        let expired = self.requests.ids { $0.deadline <= now }
        for id in expired {
            guard let request = self.requests.removeValue(for: id) else { continue }
            if let streamID = request.streamID {
                if request.generation == self.connection?.generation {
                    self.connection?.handler.cancel(streamID: streamID)
                    self.gate.finished(authenticated: false)
                } else {
                    // On a connection draining after GOAWAY: reset there, so that it can close.
                    self.draining[request.generation]?.handler.cancel(streamID: streamID)
                }
            } else {
                _ = self.gate.remove(id)
            }
            request.answer(.failure(.deadlineExceeded))
        }
        if !expired.isEmpty { self.pump() }
        guard let connection = self.connection else { return }
        if let sent = self.pingSentAt {
            if now - sent > TimeAmount(self.configuration.pingTimeout) {
                self.logger.debug("APNs PING unanswered; closing the connection")
                connection.channel.close(promise: nil)
            }
        } else if now - self.lastReadAt > TimeAmount(self.configuration.pingInterval) {
            self.pingSentAt = now
            connection.handler.ping(now.uptimeNanoseconds)
        }
    }

    /// Fails what waits for a stream, stops the tick and closes the connection, one still being set up, and those
    /// still draining after a GOAWAY (their streams in flight end as lost, as the current connection's do: with the
    /// tick stopped, nothing else would end them).
    func shutdown() -> EventLoopFuture<Void> {
        self.isShutdown = true
        self.sweep?.cancel()
        self.sweep = nil
        for id in self.gate.drainPending() {
            self.requests.removeValue(for: id)?.answer(.failure(.shutdown))
        }
        // A connection still in its TLS handshake too: it would otherwise wait on a peer that may never answer.
        let open = [self.connection, self.pendingConnection].compactMap { $0 } + self.draining.values
        self.connection = nil
        self.pendingConnection = nil
        self.draining.removeAll()
        let closed = open.map { $0.channel.close().recover { _ in } }
        return EventLoopFuture.andAllComplete(closed, on: self.eventLoop)
    }
}
