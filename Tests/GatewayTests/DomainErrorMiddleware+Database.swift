import Foundation
import Hummingbird
import HummingbirdTesting
import PostgresStore
import Testing

@testable import Gateway

/// What a client is told when the database goes away under its request: a 503 with Retry-After in the error shape (the
/// outcome may be unknown; a push sent again with its Idempotency-Key is applied once), never the 500 of a bug.
@Suite struct DomainErrorMiddlewareDatabaseTests {
    struct Unexpected: Error {}

    @Test func aLostDatabaseAnswers503AndAnythingElse500() async throws {
        let router = Router()
        router.add(middleware: DomainErrorMiddleware())
        router.get("/lost") { _, _ -> String in throw LostStatementError.connectionClosed }
        router.get("/bug") { _, _ -> String in throw Unexpected() }
        try await Application(router: router).test(.router) { client in
            try await client.execute(uri: "/lost", method: .get) { response in
                #expect(response.status == .serviceUnavailable)
                #expect(response.headers[.retryAfter] == "1")
                let body = try JSONSerialization.jsonObject(with: Data(buffer: response.body)) as? [String: Any]
                #expect(body?["ok"] as? Bool == false)
                #expect(body?["error_code"] as? Int == 50301)
                #expect((body?["error"] as? String)?.contains("Idempotency-Key") == true, "\(String(describing: body))")
            }
            try await client.execute(uri: "/bug", method: .get) { response in
                #expect(response.status == .internalServerError)
            }
        }
    }
}
