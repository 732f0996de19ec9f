import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
    // `CancellableDataTask`: Linux's `URLSession.data(for:)` can deadlock on cancellation.
    import LiveActivitiesClient
#endif

/// Uploads contracts to the gateway's server API: `PUT /api/attributes-types/{type}/contracts/{version}`, HTTP Basic
/// `app_key:master_secret`. For an app's CI (`live-activities-contract upload`), never the app: it takes the master
/// secret.
public struct ContractUpload: Sendable {
    public var gateway: URL
    public var appKey: String
    public var masterSecret: String
    let session: URLSession

    /// The range of versions the gateway accepts.
    public static let versions = 1...1_000_000

    public init(gateway: URL, appKey: String, masterSecret: String, session: URLSession = .shared) {
        self.gateway = gateway
        self.appKey = appKey
        self.masterSecret = masterSecret
        self.session = session
    }

    public func put(_ contract: ActivityContract, attributesType: String, version: Int) async throws {
        try await self.put(document: contract.jsonData(), attributesType: attributesType, version: version)
    }

    /// A document as JSON (one made by `ActivityContract.jsonData`, or a JSON Schema pair written by hand for an app
    /// not written in Swift). Throws `ContractUploadError` with the gateway's answer when it refuses it.
    public func put(document: Data, attributesType: String, version: Int) async throws {
        guard Self.versions.contains(version) else {
            throw ContractUploadError(status: nil, error: "version \(version) is not in 1...1000000")
        }
        var request = URLRequest(url: self.url(attributesType: attributesType, version: version))
        request.httpMethod = "PUT"
        request.httpBody = document
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        let credentials = Data("\(self.appKey):\(self.masterSecret)".utf8).base64EncodedString()
        request.setValue("Basic \(credentials)", forHTTPHeaderField: "Authorization")
        #if canImport(FoundationNetworking)
            let (data, response) = try await CancellableDataTask.data(for: request, on: self.session)
        #else
            let (data, response) = try await self.session.data(for: request)
        #endif
        guard let http = response as? HTTPURLResponse else { throw URLError(.badServerResponse) }
        guard (200..<300).contains(http.statusCode) else {
            throw ContractUploadError(status: http.statusCode, body: data)
        }
    }

    func url(attributesType: String, version: Int) -> URL {
        // The type is one path segment: a slash or a question mark in it must not start another.
        var allowed = CharacterSet.urlPathAllowed
        allowed.remove(charactersIn: "/?#%")
        let type = attributesType.addingPercentEncoding(withAllowedCharacters: allowed) ?? attributesType
        var base = self.gateway.absoluteString
        while base.hasSuffix("/") { base.removeLast() }
        return URL(string: "\(base)/api/attributes-types/\(type)/contracts/\(version)")!
    }
}
