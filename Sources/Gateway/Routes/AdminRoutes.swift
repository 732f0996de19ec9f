import Hummingbird
import LiveActivitiesCore
import PostgresStore

/// The operator API: tenants and their credentials. Secrets are in responses only at creation and rotation.
struct AdminRoutes {
    let apps: any AppStore
    let credentials: CredentialCache
    let database: Database
    let bodyLimit: Int

    func register(on group: RouterGroup<GatewayContext>) {
        group.post("apps", use: self.create)
        group.get("apps", use: self.list)
        group.get("apps/{key}", use: self.get)
        group.put("apps/{key}/apns", use: self.replaceCredentials)
        group.post("apps/{key}/rotate-secrets", use: self.rotate)
        group.delete("apps/{key}", use: self.delete)
        group.put("apps/{key}/policies", use: self.replacePolicies)
    }

    struct Created: Encodable, Sendable {
        var app: AppSummary
        var appKey: String
        var appSecret: String
        var masterSecret: String

        enum CodingKeys: String, CodingKey {
            case app
            case appKey = "app_key"
            case appSecret = "app_secret"
            case masterSecret = "master_secret"
        }
    }

    @Sendable func create(_ request: Request, context: GatewayContext) async throws -> OK<Created> {
        let body = try await request.decodeJSON(CreateAppRequest.self, limit: self.bodyLimit)
        let (app, secrets) = try await self.apps.create(
            name: body.name, bundleID: body.bundleID, apns: body.apns.credentials)
        context.logger.info("app created", metadata: ["app_key": "\(app.appKey)"])
        return OK(
            Created(app: app, appKey: app.appKey, appSecret: secrets.appSecret, masterSecret: secrets.masterSecret),
            status: .created
        )
    }

    struct AppList: Encodable, Sendable { var apps: [AppSummary] }
    struct OneApp: Encodable, Sendable { var app: AppSummary }

    @Sendable func list(_ request: Request, context: GatewayContext) async throws -> OK<AppList> {
        OK(AppList(apps: try await self.apps.list()))
    }

    @Sendable func get(_ request: Request, context: GatewayContext) async throws -> OK<OneApp> {
        let key = try context.parameters.require("key")
        guard let app = try await self.apps.get(appKey: key) else { throw APIError.notFound("The app") }
        return OK(OneApp(app: app))
    }

    @Sendable func replaceCredentials(_ request: Request, context: GatewayContext) async throws -> OK<OneApp> {
        let key = try context.parameters.require("key")
        let body = try await request.decodeJSON(APNsCredentialsBody.self, limit: self.bodyLimit)
        guard let app = try await self.apps.replaceCredentials(appKey: key, apns: body.credentials) else {
            throw APIError.notFound("The app")
        }
        context.logger.info("app APNs credentials replaced", metadata: ["app_key": "\(key)"])
        return OK(OneApp(app: app))
    }

    struct Rotated: Encodable, Sendable {
        var appKey: String
        var appSecret: String
        var masterSecret: String

        enum CodingKeys: String, CodingKey {
            case appKey = "app_key"
            case appSecret = "app_secret"
            case masterSecret = "master_secret"
        }
    }

    @Sendable func rotate(_ request: Request, context: GatewayContext) async throws -> OK<Rotated> {
        let key = try context.parameters.require("key")
        guard let secrets = try await self.apps.rotateSecrets(appKey: key) else { throw APIError.notFound("The app") }
        await self.credentials.invalidate(appKey: key)
        context.logger.info("app secrets rotated", metadata: ["app_key": "\(key)"])
        return OK(Rotated(appKey: key, appSecret: secrets.appSecret, masterSecret: secrets.masterSecret))
    }

    struct Deleted: Encodable, Sendable { var deleted: String }

    @Sendable func delete(_ request: Request, context: GatewayContext) async throws -> OK<Deleted> {
        let key = try context.parameters.require("key")
        guard try await self.apps.delete(appKey: key) else { throw APIError.notFound("The app") }
        await self.credentials.invalidate(appKey: key)
        context.logger.info("app deleted", metadata: ["app_key": "\(key)"])
        return OK(Deleted(deleted: key))
    }

    /// Lifecycle policies: maximum age, retention, and idle ends by attributes type (replaced as a whole).
    @Sendable func replacePolicies(_ request: Request, context: GatewayContext) async throws -> OK<Empty> {
        let key = try context.parameters.require("key")
        let policies = try await request.decodeJSON(ActivityPolicies.self, limit: self.bodyLimit)
        guard try await policies.apply(appKey: key, database: self.database) else { throw APIError.notFound("The app") }
        await self.credentials.invalidate(appKey: key)  // the device permissions ride on the auth record
        context.logger.info("app policies replaced", metadata: ["app_key": "\(key)"])
        return OK(Empty())
    }
}

/// `POST /admin/apps` body.
struct CreateAppRequest: Decodable {
    var name: String
    var bundleID: String
    var apns: APNsCredentialsBody

    enum CodingKeys: String, CodingKey, CaseIterable {
        case name
        case bundleID = "bundle_id"
        case apns
    }

    init(from decoder: any Decoder) throws {
        try decoder.rejectUnknownKeys(CodingKeys.self)
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.name = try container.decode(String.self, forKey: .name)
        self.bundleID = try container.decode(String.self, forKey: .bundleID)
        self.apns = try container.decode(APNsCredentialsBody.self, forKey: .apns)
        try FieldRules.text(self.name, path: "name", maxLength: 200)
        try FieldRules.bundleID(self.bundleID, path: "bundle_id")
    }
}

/// APNs credentials as an operator sends them; the `.p8` is parsed here, so a bad key is a 400.
struct APNsCredentialsBody: Decodable {
    var credentials: APNsKeyMaterial

    enum CodingKeys: String, CodingKey, CaseIterable {
        case teamID = "team_id"
        case keyID = "key_id"
        case privateKey = "private_key"
        case environment
    }

    init(from decoder: any Decoder) throws {
        try decoder.rejectUnknownKeys(CodingKeys.self)
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let prefix = ValidationError.path(decoder.codingPath)
        func path(_ key: CodingKeys) -> String { prefix.isEmpty ? key.rawValue : "\(prefix).\(key.rawValue)" }
        let teamID = try container.decode(String.self, forKey: .teamID)
        let keyID = try container.decode(String.self, forKey: .keyID)
        let pem = try container.decode(String.self, forKey: .privateKey)
        let environment = try container.decode(String.self, forKey: .environment)
        try FieldRules.appleIdentifier(teamID, path: path(.teamID))
        try FieldRules.appleIdentifier(keyID, path: path(.keyID))
        guard let env = AppEnvironment(rawValue: environment) else {
            throw ValidationError(path: path(.environment), rule: "must be 'production' or 'development'")
        }
        do {
            self.credentials = try APNsKeyMaterial(teamID: teamID, keyID: keyID, environment: env, pem: pem)
        } catch {
            throw ValidationError(
                path: path(.privateKey), rule: "must be an APNs auth key: a P-256 private key in PEM (.p8)")
        }
    }
}
