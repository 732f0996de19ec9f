import Hummingbird
import LiveActivitiesCore
import PostgresStore

/// Turns the errors of the domain core and the store (which know nothing of HTTP) into API errors, so routes and
/// stores can throw what they mean. An error that may mean the database is gone (`mayMeanServerLost`: a lost
/// connection, a server shutting down, a standby refusing a write) is a 503 with Retry-After. Any other error is
/// unexpected: logged with the request id, answered as a 500 in the API's error shape.
struct DomainErrorMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as ValidationError {
            throw APIError.validation(error)
        } catch let error as QuotaExceeded {
            throw APIError(
                .conflict, code: .conflict,
                "The app's quota \(error.quota) (\(error.limit)) would be exceeded; nothing was written.",
                details: ["quota": error.quota, "limit": "\(error.limit)"])
        } catch let error as RegistryError {
            throw APIError(registry: error)
        } catch let error as ScheduleError {
            throw APIError(schedule: error)
        } catch let error as any HTTPResponseError {
            throw error
        } catch  where error.mayMeanServerLost {
            context.logger.warning("request failed: the database is not reachable", metadata: ["error": "\(error)"])
            throw APIError.databaseUnavailable
        } catch {
            // The error's description only: postgres-nio's leaves the statement and its bindings out.
            context.logger.error("request failed unexpectedly", metadata: ["error": "\(error)"])
            throw APIError.unexpected
        }
    }
}

extension APIError {
    init(registry error: RegistryError) {
        switch error {
        case .channelNotFound:
            self = .channelNotFound
        case .activityEnded(let id):
            self.init(
                .conflict, code: .conflict,
                "The activity '\(id)' has ended; iOS gives a new activity a new id.",
                details: ["path": "system_activity_id", "rule": "must not name an ended activity"])
        }
    }
}

extension APIError {
    init(schedule error: ScheduleError) {
        switch error {
        case .activityNotTracked(let name):
            self.init(
                .notFound, code: .notFound, "The channel tracks no live activity named '\(name)'.",
                details: ["path": "name", "rule": "must name a tracked activity"])
        case .notPending(let state):
            self.init(
                .conflict, code: .conflict, "The schedule is \(state); only a pending schedule can change.",
                details: ["state": state.rawValue])
        }
    }
}
