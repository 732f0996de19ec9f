import Foundation
import HTTPTypes
import OpenAPIRuntime
import OpenAPIURLSession

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Sends one live-activity update through the client generated from the gateway's OpenAPI document, to an audience in
/// Airship's forms (upper-case operators, a list of tags), validating it first; prints the push id.
/// Usage: OpenAPIClientCheck GATEWAY_URL APP_KEY MASTER_SECRET
struct BasicAuthentication: ClientMiddleware {
    let header: String

    func intercept(
        _ request: HTTPRequest, body: HTTPBody?, baseURL: URL, operationID: String,
        next: (HTTPRequest, HTTPBody?, URL) async throws -> (HTTPResponse, HTTPBody?)
    ) async throws -> (HTTPResponse, HTTPBody?) {
        var request = request
        request.headerFields[.authorization] = self.header
        return try await next(request, body, baseURL)
    }
}

enum CheckError: Error {
    case usage
    case refused(String)
}

let arguments = CommandLine.arguments
guard arguments.count == 4, let serverURL = URL(string: arguments[1]) else {
    FileHandle.standardError.write(Data("usage: OpenAPIClientCheck GATEWAY_URL APP_KEY MASTER_SECRET\n".utf8))
    exit(2)
}
let credentials = Data("\(arguments[2]):\(arguments[3])".utf8).base64EncodedString()
let client = Client(
    serverURL: serverURL, transport: URLSessionTransport(),
    middlewares: [BasicAuthentication(header: "Basic \(credentials)")])

// {"AND": [{"OR": [{"tag": ["sports", "news"]}]}, {"NOT": {"named_user": "nobody"}}]}
let audience = Components.Schemas.Audience.AudienceAndUpper(
    .init(AND: [
        .AudienceOrUpper(.init(OR: [.AudienceTag(.init(tag: .case2(["sports", "news"])))])),
        .AudienceNotUpper(.init(NOT: .AudienceNamedUser(.init(named_user: .case1("nobody"))))),
    ]))
let push = Components.Schemas.PushRequest(
    audience: audience, device_types: .case2([.ios]),
    notification: .init(
        ios: .init(
            live_activity: .init(
                content_state: .init(additionalProperties: try OpenAPIObjectContainer(unvalidatedValue: ["home": 1])),
                event: .update, name: "match"))))

switch try await client.validatePush(body: .json(.PushRequest(push))) {
case .ok: break
case let other: throw CheckError.refused("validate: \(other)")
}
switch try await client.sendPush(body: .json(.PushRequest(push))) {
case .accepted(let accepted):
    let answer = try accepted.body.json
    print("push_id \(answer.push_ids.first ?? "")")
case let other: throw CheckError.refused("push: \(other)")
}
