/// What the transport needs to talk to APNs for one app: the team, the key and its environment.
public struct APNsCredentials: Sendable {
    public var teamID: String
    public var keyID: String
    public var environment: APNsEnvironment
    public var signingKey: APNsSigningKey

    public init(teamID: String, keyID: String, environment: APNsEnvironment, signingKey: APNsSigningKey) {
        self.teamID = teamID
        self.keyID = keyID
        self.environment = environment
        self.signingKey = signingKey
    }
}
