import Foundation
import LiveActivitiesClient

/// `la_callback` in `Unity/include/live_activities.h`: `void (*)(void *context, int32_t status, const char *json)`.
/// A C function pointer captures nothing, so calling it from any thread is safe.
public typealias LACallback = @convention(c) @Sendable (UnsafeMutableRawPointer?, Int32, UnsafePointer<CChar>?) -> Void

/// The statuses a callback gets besides 0 (success) and an HTTP status (the gateway refused the call, 4xx): negative,
/// as `LA_ERR_*` in the header.
enum BridgeStatus: Int32 {
    case invalidArgument = -1
    case notConfigured = -2
    case invalidToken = -3
    case exhausted = -4
    case invalidAnswer = -5
    case store = -6
    case failed = -7
}

/// A failure the binding reports: the callback's status and the JSON error's fields.
struct BridgeError: Error {
    var status: Int32
    var message: String
    var errorCode: Int?
    var path: String?
    var httpStatus: Int?

    static func invalidArgument(_ message: String, path: String? = nil) -> BridgeError {
        BridgeError(status: BridgeStatus.invalidArgument.rawValue, message: message, path: path)
    }

    /// What a client call threw, as the callback reports it.
    init(_ error: any Error) {
        switch error {
        case let error as BridgeError:
            self = error
        case LiveActivitiesError.rejected(let rejection):
            self.init(
                status: Int32(clamping: rejection.status), message: rejection.message, errorCode: rejection.errorCode,
                path: rejection.path, httpStatus: rejection.status)
        case LiveActivitiesError.exhausted(let attempts, let lastStatus, let lastError):
            let last = lastStatus.map { "HTTP \($0)" } ?? lastError ?? "no answer"
            self.init(
                status: BridgeStatus.exhausted.rawValue, message: "gave up after \(attempts) attempts: \(last)",
                httpStatus: lastStatus)
        case LiveActivitiesError.invalidAnswer(let answer):
            self.init(
                status: BridgeStatus.invalidAnswer.rawValue, message: "the gateway's answer was unreadable: \(answer)")
        case LiveActivitiesError.invalidToken:
            self.init(
                status: BridgeStatus.invalidToken.rawValue, message: "the token is empty or not even-length hex",
                path: "token")
        case LiveActivitiesError.store(let message):
            self.init(status: BridgeStatus.store.rawValue, message: "the install store failed: \(message)")
        case is CancellationError:
            self.init(status: BridgeStatus.failed.rawValue, message: "canceled")
        default:
            self.init(status: BridgeStatus.failed.rawValue, message: "\(error)")
        }
    }

    init(status: Int32, message: String, errorCode: Int? = nil, path: String? = nil, httpStatus: Int? = nil) {
        self.status = status
        self.message = message
        self.errorCode = errorCode
        self.path = path
        self.httpStatus = httpStatus
    }

    /// `{"error":..,"error_code":..,"path":..,"status":..}` (absent values are null).
    var json: String {
        let object: [String: Any] = [
            "error": self.message, "error_code": self.errorCode.map { $0 as Any } ?? NSNull(),
            "path": self.path.map { $0 as Any } ?? NSNull(), "status": self.httpStatus.map { $0 as Any } ?? NSNull(),
        ]
        return Reply.serialize(object)
    }
}

/// One call's way back to C: the callback and its context, called exactly once.
struct Reply: Sendable {
    let callback: LACallback?
    /// The caller's `void *context`, as an address: the binding never dereferences it, only hands it back.
    let context: UInt

    init(_ context: UnsafeMutableRawPointer?, _ callback: LACallback?) {
        self.callback = callback
        self.context = UInt(bitPattern: context)
    }

    func succeed(_ object: [String: Any]) { self.send(0, Self.serialize(object)) }

    func fail(_ error: any Error) {
        let error = BridgeError(error)
        self.send(error.status, error.json)
    }

    private func send(_ status: Int32, _ json: String) {
        guard let callback = self.callback else { return }
        json.withCString { callback(UnsafeMutableRawPointer(bitPattern: self.context), status, $0) }
    }

    static func serialize(_ object: [String: Any]) -> String {
        guard let data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]) else {
            return #"{"error":"unserializable answer","error_code":null,"path":null,"status":null}"#
        }
        return String(decoding: data, as: UTF8.self)
    }
}

/// The process-wide client `la_configure` makes; calls before it fail with `LA_ERR_NOT_CONFIGURED`.
final class ClientHolder: @unchecked Sendable {
    // @unchecked: the only stored state is `client`, read and written only under `lock` (an NSLock; the package's
    // iOS 16.1 floor rules out `Synchronization.Mutex`). `GatewayClient` itself is an actor.
    private let lock = NSLock()
    private var client: GatewayClient?

    static let shared = ClientHolder()

    var current: GatewayClient? {
        self.lock.lock()
        defer { self.lock.unlock() }
        return self.client
    }

    func replace(with client: GatewayClient) {
        self.lock.lock()
        defer { self.lock.unlock() }
        self.client = client
    }
}

/// Runs `work` on the configured client in a task and reports its answer (or its error) through `reply`, once.
func dispatch(_ reply: Reply, _ work: @escaping @Sendable (GatewayClient) async throws -> [String: Any]) {
    guard let client = ClientHolder.shared.current else {
        return reply.fail(
            BridgeError(status: BridgeStatus.notConfigured.rawValue, message: "la_configure has not been called"))
    }
    Task.detached {
        do {
            let answer = try await work(client)
            reply.succeed(answer)
        } catch {
            reply.fail(BridgeError(error))
        }
    }
}

/// A C string copied (nil for a null pointer).
func string(_ pointer: UnsafePointer<CChar>?) -> String? {
    pointer.map { String(cString: $0) }
}

/// A required C string argument: copied, or an invalid-argument error naming it.
func required(_ pointer: UnsafePointer<CChar>?, _ name: String) throws(BridgeError) -> String {
    guard let pointer else { throw .invalidArgument("\(name) is null", path: name) }
    let value = String(cString: pointer)
    guard !value.isEmpty else { throw .invalidArgument("\(name) is empty", path: name) }
    return value
}

/// A token given as hex (either case, even length).
func token(hex pointer: UnsafePointer<CChar>?, _ name: String) throws(BridgeError) -> Data {
    let hex = try required(pointer, name)
    guard let token = PushTokenHex.decode(hex) else {
        throw BridgeError(
            status: BridgeStatus.invalidToken.rawValue,
            message: "\(name) is not even-length hex (\(hex.utf8.count) characters)", path: name)
    }
    return token
}

/// A token given as bytes.
func token(bytes pointer: UnsafePointer<UInt8>?, count: Int32, _ name: String) throws(BridgeError) -> Data {
    guard let pointer else {
        throw BridgeError(status: BridgeStatus.invalidToken.rawValue, message: "\(name) is null", path: name)
    }
    guard count > 0 else {
        throw BridgeError(
            status: BridgeStatus.invalidToken.rawValue, message: "\(name) has no bytes (\(count))", path: name)
    }
    return Data(bytes: pointer, count: Int(count))
}
