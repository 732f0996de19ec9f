import Hummingbird
import LiveActivitiesCore
import Logging
import Metrics
import PostgresStore

/// One access-log line and two metrics per request, labelled by route template (never by id).
struct ObservabilityMiddleware: RouterMiddleware {
    typealias Context = GatewayContext
    let metrics: any MetricsFactory

    func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        let started = ContinuousClock.now
        var context = context
        if let credentials = BasicCredentials(request.headers[.authorization]) {
            // The key only: it names the tenant, it grants nothing. Authentication reuses the parsed pair.
            context.logger[metadataKey: "app_key"] = "\(credentials.appKey)"
            context.basicCredentials = credentials
        }
        do {
            let response = try await next(request, context)
            self.record(request, context: context, status: response.status.code, started: started)
            return response
        } catch {
            let status = (error as? any HTTPResponseError)?.status.code ?? 500
            // A shed request is expected under load: an info line like a 4xx, and the shedder's one warning a
            // second; an error line each (thousands a second) cost the gateway 5% of its CPU when it could least
            // spare it.
            let shed = error is ShedError
            self.record(request, context: context, status: status, started: started, failed: !shed)
            if status >= 500, !shed {
                context.logger.error("request failed", metadata: ["error": "\(String(reflecting: error))"])
            }
            throw error
        }
    }

    private func record(
        _ request: Request, context: Context, status: Int, started: ContinuousClock.Instant, failed: Bool = true
    ) {
        let elapsed = ContinuousClock.now - started
        let route = context.endpointPath ?? "unmatched"
        let method = request.method.rawValue
        Counter(
            label: "gateway_http_requests_total",
            dimensions: [("method", method), ("route", route), ("status", "\(status)")],
            factory: self.metrics
        ).increment()
        Timer(
            label: "gateway_http_request_duration_seconds",
            dimensions: [("method", method), ("route", route)],
            factory: self.metrics
        ).recordInterval(elapsed)
        context.logger.log(
            level: status >= 500 && failed ? .error : .info,
            "request",
            metadata: [
                "method": "\(method)", "route": "\(route)", "status": "\(status)",
                "duration_ms": "\((elapsed.seconds * 1000 * 100).rounded() / 100)",
            ]
        )
    }
}
