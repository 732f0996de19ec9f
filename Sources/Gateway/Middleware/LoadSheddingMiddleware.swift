import Hummingbird

/// Answers 503 (`error_code` 50301, `Retry-After: 1`) instead of queueing when the gateway is overloaded
/// (`LoadShedder`); health, metrics and admin routes are never shed.
struct LoadSheddingMiddleware: RouterMiddleware {
    typealias Context = GatewayContext
    let shedder: LoadShedder

    func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        guard self.shedder.admit() else { throw ShedError() }
        let started = ContinuousClock.now
        defer { self.shedder.finished(after: .now - started) }
        return try await next(request, context)
    }
}
