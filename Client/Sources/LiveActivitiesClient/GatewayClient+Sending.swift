import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension GatewayClient {
    // MARK: the record

    func loadRecord() throws -> InstallRecord {
        if let record = self.record { return record }
        do {
            let record = try self.store.load() ?? InstallRecord(installID: UUID().uuidString.lowercased())
            try self.store.save(record)
            self.record = record
            return record
        } catch let error as LiveActivitiesError {
            throw error
        } catch {
            throw LiveActivitiesError.store("\(error)")
        }
    }

    func mutateRecord(_ change: (inout InstallRecord) -> Void) throws {
        var record = try self.loadRecord()
        change(&record)
        do { try self.store.save(record) } catch { throw LiveActivitiesError.store("\(error)") }
        self.record = record
    }

    /// Remembers (or forgets, with nil) the broadcast channel an activity follows.
    public func setBroadcastChannel(_ channelID: String?, forActivity activityID: String) throws {
        try self.mutateRecord { $0.broadcastActivities[activityID] = channelID }
    }

    /// The broadcast channel an activity was started on, if it was.
    public func broadcastChannel(forActivity activityID: String) throws -> String? {
        try self.loadRecord().broadcastActivities[activityID]
    }

    /// Forgets the broadcast channels of activities that no longer run (dismissed while the app was not running).
    public func forgetBroadcastChannels(except running: Set<String>) throws {
        guard try self.loadRecord().broadcastActivities.keys.contains(where: { !running.contains($0) }) else { return }
        try self.mutateRecord { $0.broadcastActivities = $0.broadcastActivities.filter { running.contains($0.key) } }
    }

    // MARK: registration

    /// `POST /api/channels`: one registration at a time; presenting the channel secret when the install has one
    /// (the same channel again), none when its channel was forgotten (a new one).
    func registerAgain() async throws -> String {
        if let running = self.registration { return try await running.value }
        let task = Task { try await self.postRegistration() }
        self.registration = task
        defer { self.registration = nil }
        return try await task.value
    }

    private func postRegistration() async throws -> String {
        struct Registered: Decodable {
            var channelID: String
            var channelSecret: String?
            enum CodingKeys: String, CodingKey {
                case channelID = "channel_id"
                case channelSecret = "channel_secret"
            }
        }
        let record = try self.loadRecord()
        var body = self.settings.body(installID: record.installID)
        if var channel = body["channel"] as? [String: Any], let enabled = record.liveActivitiesEnabled {
            channel["live_activities_enabled"] = enabled
            body["channel"] = channel
        }
        let answer: Registered = try await self.call(
            "POST", "/api/channels", body: body, channelSecret: record.channelSecret)
        let previous = record.channelID
        try self.mutateRecord {
            $0.channelID = answer.channelID
            if let secret = answer.channelSecret { $0.channelSecret = secret }
        }
        if let previous, previous != answer.channelID {
            // After this registration is over (a handler's calls may need the channel): not awaited here.
            let handlers = Array(self.channelChangeHandlers.values)
            let id = answer.channelID
            Task { for handler in handlers { await handler(id) } }
        }
        return answer.channelID
    }

    func updateChannel(_ body: [String: Any]) async throws {
        let _: Empty = try await self.channelCall("PUT", "", body: body)
    }

    // MARK: calls

    /// A call on this install's channel (`/api/channels/{id}` + `suffix`), registering first if needed. A 404 that
    /// names the channel (`details.path` `channel_id`: the channel is gone at the gateway; a 404 of something under
    /// it names that) registers the install again once, presenting its secret, and retries on the channel the
    /// gateway answers; if that is the same channel, the 404 stands.
    func channelCall<Answer: Decodable>(
        _ method: String, _ suffix: String, body: [String: Any]? = nil, query: [URLQueryItem] = [],
        idempotencyKey: String? = nil, reregister: Bool = true
    ) async throws -> Answer {
        let channelID = try await self.channel()
        do {
            return try await self.call(
                method, "/api/channels/\(channelID)\(suffix)", body: body, query: query,
                channelSecret: self.record?.channelSecret, idempotencyKey: idempotencyKey)
        } catch LiveActivitiesError.rejected(let rejection)
            where rejection.status == 404 && rejection.path == "channel_id" && reregister
        {
            let newID = try await self.registerAgain()
            guard newID != channelID else { throw LiveActivitiesError.rejected(rejection) }
            return try await self.call(
                method, "/api/channels/\(newID)\(suffix)", body: body, query: query,
                channelSecret: self.record?.channelSecret, idempotencyKey: idempotencyKey)
        }
    }

    /// One call with retries. Retried: transport errors, 429, 500, 502, 503, 504 (429 and 503 wait `Retry-After`
    /// when given). Other 4xx throw `.rejected` at once.
    func call<Answer: Decodable>(
        _ method: String, _ path: String, body: [String: Any]? = nil, query: [URLQueryItem] = [],
        channelSecret: String? = nil, idempotencyKey: String? = nil
    ) async throws -> Answer {
        let request = try self.request(
            method, path, body: body, query: query, channelSecret: channelSecret, idempotencyKey: idempotencyKey)
        let policy = self.configuration.retry
        var lastStatus: Int?
        var lastError: String?
        for attempt in 1...policy.maxAttempts {
            var retryAfter: TimeInterval?
            do {
                let (data, response) = try await self.transport.send(request)
                let status = response.statusCode
                if (200..<300).contains(status) { return try Self.decode(Answer.self, data) }
                lastStatus = status
                lastError = nil
                guard RetryPolicy.isRetried(status: status) else { throw Self.rejection(status, data) }
                if RetryPolicy.honoursRetryAfter(status: status) {
                    retryAfter = RetryPolicy.retryAfter(response.value(forHTTPHeaderField: "Retry-After"))
                    if let wait = retryAfter, wait > policy.maxRetryAfter { throw Self.rejection(status, data) }
                }
            } catch let error as LiveActivitiesError {
                throw error
            } catch is CancellationError {
                throw CancellationError()
            } catch {
                lastStatus = nil
                lastError = "\(error)"
            }
            guard attempt < policy.maxAttempts else { break }
            let delay = policy.delay(afterAttempt: attempt, retryAfter: retryAfter, random: Double.random(in: 0...1))
            try await Task.sleep(nanoseconds: UInt64(delay * 1_000_000_000))
        }
        throw LiveActivitiesError.exhausted(attempts: policy.maxAttempts, lastStatus: lastStatus, lastError: lastError)
    }

    func request(
        _ method: String, _ path: String, body: [String: Any]?, query: [URLQueryItem], channelSecret: String?,
        idempotencyKey: String?
    ) throws -> URLRequest {
        var components = URLComponents(url: self.configuration.baseURL, resolvingAgainstBaseURL: false)
        let basePath = components?.percentEncodedPath ?? ""
        components?.percentEncodedPath = (basePath.hasSuffix("/") ? String(basePath.dropLast()) : basePath) + path
        if !query.isEmpty { components?.queryItems = query }
        guard let url = components?.url else { throw LiveActivitiesError.invalidAnswer("bad URL for \(path)") }
        var request = URLRequest(url: url, timeoutInterval: self.configuration.requestTimeout)
        request.httpMethod = method
        let credentials = Data("\(self.configuration.appKey):\(self.configuration.appSecret)".utf8)
        request.setValue("Basic \(credentials.base64EncodedString())", forHTTPHeaderField: "Authorization")
        request.setValue("application/json", forHTTPHeaderField: "Accept")
        if let channelSecret { request.setValue(channelSecret, forHTTPHeaderField: "X-Channel-Secret") }
        if let idempotencyKey { request.setValue(idempotencyKey, forHTTPHeaderField: "Idempotency-Key") }
        if let body {
            request.httpBody = try JSONSerialization.data(withJSONObject: body, options: [.sortedKeys])
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        }
        return request
    }

    static func decode<Answer: Decodable>(_ type: Answer.Type, _ data: Data) throws -> Answer {
        if Answer.self == Empty.self, let empty = Empty() as? Answer { return empty }
        do {
            return try JSONDecoder().decode(Answer.self, from: data)
        } catch {
            throw LiveActivitiesError.invalidAnswer(String(decoding: data.prefix(512), as: UTF8.self))
        }
    }

    /// The gateway's error shape, or what can be said of an answer without it.
    static func rejection(_ status: Int, _ data: Data) -> LiveActivitiesError {
        let object = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] ?? [:]
        let details = object["details"] as? [String: Any] ?? [:]
        return .rejected(
            GatewayRejection(
                status: status, message: object["error"] as? String ?? "HTTP \(status)",
                errorCode: (object["error_code"] as? NSNumber)?.intValue, path: details["path"] as? String,
                rule: details["rule"] as? String, requestID: object["request_id"] as? String))
    }

    /// A path segment: names and attributes types percent-encoded (a `/` in a name stays inside its segment).
    static func segment(_ value: String) -> String {
        var allowed = CharacterSet.urlPathAllowed
        allowed.remove(charactersIn: "/?#%")
        return value.addingPercentEncoding(withAllowedCharacters: allowed) ?? value
    }
}
