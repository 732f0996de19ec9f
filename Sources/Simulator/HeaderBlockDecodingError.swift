/// Why a header block could not be decoded.
struct HeaderBlockDecodingError: Error {
    var reason: String
    init(_ reason: String) { self.reason = reason }
}
