import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1

/// The bench's HTTP calls (AsyncHTTPClient, kept-alive connections): the gateway's API, the simulator's admin API,
/// the workers' metrics.
struct BenchHTTP: Sendable {
    let client: HTTPClient

    struct Response: Sendable {
        let status: Int
        let body: Data
        var text: String { String(decoding: self.body, as: UTF8.self) }

        func decode<T: Decodable>(_ type: T.Type) throws -> T {
            do {
                return try JSONDecoder().decode(type, from: self.body)
            } catch {
                throw BenchError("unexpected answer (\(self.status)) \(self.text.prefix(300)): \(error)")
            }
        }
    }

    static func make() -> BenchHTTP { BenchHTTP(client: HTTPClient(eventLoopGroupProvider: .singleton)) }

    func shutdown() async { try? await self.client.shutdown() }

    static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()

    /// One request; `basic` is "user:password"; a status other than 2xx throws when `check`, as `curl -f` fails.
    func call(
        _ method: HTTPMethod, _ url: String, body: Data? = nil, basic: String? = nil, bearer: String? = nil,
        check: Bool = true, timeout: Int64 = 30
    ) async throws -> Response {
        var request = HTTPClientRequest(url: url)
        request.method = method
        if let basic {
            request.headers.add(name: "Authorization", value: "Basic " + Data(basic.utf8).base64EncodedString())
        }
        if let bearer { request.headers.add(name: "Authorization", value: "Bearer " + bearer) }
        if let body {
            request.headers.add(name: "Content-Type", value: "application/json")
            request.body = .bytes(ByteBuffer(bytes: body))
        }
        let response = try await self.client.execute(request, timeout: .seconds(timeout))
        let bytes = try await response.body.collect(upTo: 64 << 20)
        let answer = Response(status: Int(response.status.code), body: Data(bytes.readableBytesView))
        if check && !(200..<300).contains(answer.status) {
            throw BenchError("\(method) \(url) answered \(answer.status): \(answer.text.prefix(300))")
        }
        return answer
    }

    func get(_ url: String, basic: String? = nil) async throws -> Response {
        try await self.call(.GET, url, basic: basic)
    }

    func post<Body: Encodable>(
        _ url: String, _ body: Body, basic: String? = nil, bearer: String? = nil, check: Bool = true
    ) async throws -> Response {
        try await self.call(.POST, url, body: try Self.encoder.encode(body), basic: basic, bearer: bearer, check: check)
    }

    func put<Body: Encodable>(_ url: String, _ body: Body, basic: String? = nil, bearer: String? = nil) async throws
        -> Response
    {
        try await self.call(.PUT, url, body: try Self.encoder.encode(body), basic: basic, bearer: bearer)
    }

    /// Whether `url` answers 2xx now.
    func answers(_ url: String) async -> Bool {
        (try? await self.call(.GET, url, check: true, timeout: 2)) != nil
    }
}
