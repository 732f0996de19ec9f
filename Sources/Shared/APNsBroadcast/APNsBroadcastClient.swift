import APNsCommon
import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL
import Synchronization

/// Apple's broadcast API for Live Activities (iOS 18): channel management and broadcast sends, with ES256 provider
/// tokens from the shared cache.
///
/// One request per push or per channel change, not a hot path: it rides AsyncHTTPClient's pooled HTTP/2 connections
/// (kept open, as Apple asks) rather than the hand-written per-token client, and never shares a connection with a
/// fan-out's thousands of streams.
public final class APNsBroadcastClient: Sendable {
    public let endpoints: APNsBroadcastEndpoints
    let tokens: ProviderTokenCache
    let timeout: Duration
    let configuration: HTTPClient.Configuration
    let eventLoopGroup: any EventLoopGroup
    /// Made on first use: most processes never broadcast, and a client must be shut down once made. Nil after
    /// `shutdown` as before the first use; `closed` tells them apart.
    private let http = Mutex<(client: HTTPClient?, closed: Bool)>((nil, false))

    public init(
        endpoints: APNsBroadcastEndpoints = .init(), trustRoots: NIOSSLTrustRoots? = nil,
        tokens: ProviderTokenCache = ProviderTokenCache(),
        eventLoopGroup: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton, timeout: Duration = .seconds(10)
    ) {
        var tls = TLSConfiguration.makeClientConfiguration()
        tls.minimumTLSVersion = .tlsv12
        if let trustRoots { tls.trustRoots = trustRoots }
        var configuration = HTTPClient.Configuration(
            tlsConfiguration: tls, timeout: .init(connect: .seconds(10)))
        configuration.httpVersion = .automatic
        self.configuration = configuration
        self.eventLoopGroup = eventLoopGroup
        self.endpoints = endpoints
        self.tokens = tokens
        self.timeout = timeout
    }

    /// `POST /1/apps/<bundle id>/channels`: 201 with the new channel's id in `channelID`.
    public func createChannel(bundleID: String, storage messageStoragePolicy: Int, credentials: APNsCredentials)
        async throws(APNsTransportError) -> APNsBroadcastAnswer
    {
        let body = #"{"message-storage-policy":\#(messageStoragePolicy),"push-type":"LiveActivity"}"#
        return try await self.execute(
            .POST, self.endpoints.manage(credentials.environment), path: "/1/apps/\(bundleID)/channels",
            headers: [], body: ByteBuffer(string: body), credentials: credentials)
    }

    /// `GET /1/apps/<bundle id>/channels` with `apns-channel-id`: the channel's configuration, or 4xx
    /// `ChannelNotRegistered`.
    public func readChannel(bundleID: String, channelID: String, credentials: APNsCredentials)
        async throws(APNsTransportError) -> APNsBroadcastAnswer
    {
        try await self.execute(
            .GET, self.endpoints.manage(credentials.environment), path: "/1/apps/\(bundleID)/channels",
            headers: [("apns-channel-id", channelID)], body: nil, credentials: credentials)
    }

    /// `DELETE /1/apps/<bundle id>/channels` with `apns-channel-id`: 204. Irreversible.
    public func deleteChannel(bundleID: String, channelID: String, credentials: APNsCredentials)
        async throws(APNsTransportError) -> APNsBroadcastAnswer
    {
        try await self.execute(
            .DELETE, self.endpoints.manage(credentials.environment), path: "/1/apps/\(bundleID)/channels",
            headers: [("apns-channel-id", channelID)], body: nil, credentials: credentials)
    }

    /// `GET /1/apps/<bundle id>/all-channels`: `{"channels":[...]}` (`APNsBroadcastAnswer.channelIDs`).
    public func allChannels(bundleID: String, credentials: APNsCredentials)
        async throws(APNsTransportError) -> APNsBroadcastAnswer
    {
        try await self.execute(
            .GET, self.endpoints.manage(credentials.environment), path: "/1/apps/\(bundleID)/all-channels",
            headers: [], body: nil, credentials: credentials)
    }

    /// `POST /4/broadcasts/apps/<bundle id>`: one Live Activity payload to every device subscribed to the channel.
    /// 200 carries `apns-unique-id`. `priority`: 10, 5 or 1; `expiration`: epoch seconds (0 or none on a channel
    /// that stores nothing).
    public func send(
        bundleID: String, channelID: String, priority: Int, expiration: Int64?, requestID: String?, body: ByteBuffer,
        credentials: APNsCredentials
    ) async throws(APNsTransportError) -> APNsBroadcastAnswer {
        var headers = [
            ("apns-channel-id", channelID), ("apns-push-type", "liveactivity"), ("apns-priority", String(priority)),
        ]
        if let expiration { headers.append(("apns-expiration", String(expiration))) }
        if let requestID { headers.append(("apns-request-id", requestID)) }
        return try await self.execute(
            .POST, self.endpoints.send(credentials.environment), path: "/4/broadcasts/apps/\(bundleID)",
            headers: headers, body: body, credentials: credentials)
    }

    /// One request; a refused provider token is re-minted (at most once a minute, `ProviderTokenCache`) and the
    /// request sent once more.
    private func execute(
        _ method: HTTPMethod, _ endpoint: APNsEndpoint, path: String, headers: [(String, String)], body: ByteBuffer?,
        credentials: APNsCredentials
    ) async throws(APNsTransportError) -> APNsBroadcastAnswer {
        var answer = try await self.once(method, endpoint, path: path, headers: headers, body: body, credentials)
        if answer.answer.refusedProviderToken,
            self.tokens.invalidate(
                token: answer.token, teamID: credentials.teamID, keyID: credentials.keyID,
                signingKey: credentials.signingKey)
        {
            answer = try await self.once(method, endpoint, path: path, headers: headers, body: body, credentials)
        }
        return answer.answer
    }

    private func once(
        _ method: HTTPMethod, _ endpoint: APNsEndpoint, path: String, headers: [(String, String)], body: ByteBuffer?,
        _ credentials: APNsCredentials
    ) async throws(APNsTransportError) -> (answer: APNsBroadcastAnswer, token: String) {
        let token: String
        do {
            token = try self.tokens.token(
                teamID: credentials.teamID, keyID: credentials.keyID, signingKey: credentials.signingKey)
        } catch {
            throw .connectFailed("cannot sign a provider token: \(error)")
        }
        var request = HTTPClientRequest(url: "https://\(endpoint.host):\(endpoint.port)\(path)")
        request.method = method
        request.headers.add(name: "authorization", value: "bearer \(token)")
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        if let body {
            request.headers.add(name: "content-type", value: "application/json")
            request.body = .bytes(body)
        }
        let made = self.http.withLock { state -> HTTPClient? in
            if state.closed { return nil }
            if let client = state.client { return client }
            let client = HTTPClient(eventLoopGroup: self.eventLoopGroup, configuration: self.configuration)
            state.client = client
            return client
        }
        guard let http = made else { throw .shutdown }
        do {
            let (seconds, attoseconds) = self.timeout.components
            let timeout = TimeAmount.nanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
            let response = try await http.execute(request, timeout: timeout)
            let bytes = try await response.body.collect(upTo: 1 << 20)
            let data = Data(bytes.readableBytesView)
            struct ErrorBody: Decodable { var reason: String? }
            let reason =
                (200..<300).contains(Int(response.status.code))
                ? nil
                : (try? JSONDecoder().decode(ErrorBody.self, from: data))?.reason ?? "HTTP \(response.status.code)"
            return (
                APNsBroadcastAnswer(
                    status: Int(response.status.code), reason: reason,
                    channelID: response.headers.first(name: "apns-channel-id"),
                    uniqueID: response.headers.first(name: "apns-unique-id"),
                    requestID: response.headers.first(name: "apns-request-id"), body: data),
                token
            )
        } catch let error as HTTPClientError where error == .deadlineExceeded {
            throw .deadlineExceeded
        } catch let error as HTTPClientError where error == .connectTimeout {
            throw .connectFailed("connect timeout to \(endpoint.host):\(endpoint.port)")
        } catch {
            throw .connectionLost
        }
    }

    public func shutdown() async {
        let client = self.http.withLock { state in
            defer { state = (nil, true) }
            return state.client
        }
        try? await client?.shutdown()
    }
}
