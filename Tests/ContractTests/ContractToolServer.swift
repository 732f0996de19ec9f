import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A real HTTP/1.1 server on 127.0.0.1 (an ephemeral port) for the upload's tests: records each request and answers
/// what the test scripts, one connection at a time, `Connection: close`. Sockets by hand because the test target
/// depends on nothing that serves HTTP; the gateway's own tests upload to the real gateway.
final class ContractToolServer: Sendable {
    struct Request: Sendable {
        var method: String
        var path: String
        /// Lowercased names.
        var headers: [String: String]
        var body: Data
    }

    let port: UInt16
    private let listener: Int32
    private let recorded = Mutex<[Request]>([])
    private let answer: @Sendable (Request) -> (status: Int, body: String)

    var url: URL { URL(string: "http://127.0.0.1:\(self.port)")! }
    var requests: [Request] { self.recorded.withLock { $0 } }

    init(answer: @escaping @Sendable (Request) -> (status: Int, body: String) = { _ in (200, #"{"ok":true}"#) }) throws
    {
        #if canImport(Glibc)
            let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
            let listener = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard listener >= 0 else { throw POSIXError(.EIO) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { address in
                bind(listener, address, length) == 0 && listen(listener, 16) == 0
                    && getsockname(listener, address, &length) == 0
            }
        }
        guard bound else {
            close(listener)
            throw POSIXError(.EADDRNOTAVAIL)
        }
        self.listener = listener
        self.port = UInt16(bigEndian: address.sin_port)
        self.answer = answer
        Thread.detachNewThread { [self] in self.serve() }
    }

    /// Ends the accept loop: its `accept` fails once the socket is shut down.
    func stop() { shutdown(self.listener, Int32(SHUT_RDWR)) }

    /// Closes the socket itself, after its last `accept`: closed by `stop()`, its descriptor could be reused by the
    /// next test's server while this loop still accepts on it (seen: one test's upload recorded by another's server).
    private func serve() {
        while true {
            let connection = accept(self.listener, nil, nil)
            guard connection >= 0 else {
                close(self.listener)
                return
            }
            self.handle(connection)
            close(connection)
        }
    }

    private func handle(_ connection: Int32) {
        var buffer = Data()
        var chunk = [UInt8](repeating: 0, count: 4096)
        func readMore() -> Bool {
            let count = read(connection, &chunk, chunk.count)
            guard count > 0 else { return false }
            buffer.append(contentsOf: chunk[0..<count])
            return true
        }
        let separator = Data("\r\n\r\n".utf8)
        var headEnd = buffer.range(of: separator)
        while headEnd == nil {
            guard readMore() else { return }
            headEnd = buffer.range(of: separator)
        }
        guard let headEnd else { return }
        let lines = String(decoding: buffer[..<headEnd.lowerBound], as: UTF8.self).components(separatedBy: "\r\n")
        let start = lines[0].split(separator: " ")
        guard start.count >= 2 else { return }
        var headers: [String: String] = [:]
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(
                in: .whitespaces)
        }
        if headers["expect"]?.lowercased() == "100-continue" { self.write(connection, "HTTP/1.1 100 Continue\r\n\r\n") }
        let length = Int(headers["content-length"] ?? "0") ?? 0
        while buffer.count - headEnd.upperBound < length {
            guard readMore() else { return }
        }
        let body = Data(buffer[headEnd.upperBound..<(headEnd.upperBound + length)])
        let request = Request(method: String(start[0]), path: String(start[1]), headers: headers, body: body)
        self.recorded.withLock { $0.append(request) }
        let (status, text) = self.answer(request)
        self.write(
            connection,
            "HTTP/1.1 \(status) Answer\r\nContent-Type: application/json\r\nContent-Length: \(text.utf8.count)\r\n"
                + "Connection: close\r\n\r\n\(text)")
    }

    /// A client that hangs up must not kill the test process with SIGPIPE.
    #if canImport(Glibc)
        private static let noSignal = Int32(MSG_NOSIGNAL)
    #else
        private static let noSignal: Int32 = 0
    #endif

    private func write(_ connection: Int32, _ text: String) {
        let bytes = Array(text.utf8)
        var sent = 0
        while sent < bytes.count {
            let count = bytes.withUnsafeBytes {
                send(connection, $0.baseAddress! + sent, $0.count - sent, Self.noSignal)
            }
            guard count > 0 else { return }
            sent += count
        }
    }
}
