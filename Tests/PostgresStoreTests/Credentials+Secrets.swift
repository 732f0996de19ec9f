import Crypto
import LiveActivitiesCore
import PostgresStore
import Testing

@Suite struct CredentialTests {
    @Test func generatedCredentialsHaveAirshipsShape() {
        let values = (0..<200).map { _ in Credentials.generate() }
        #expect(values.allSatisfy(Credentials.isWellFormed))
        #expect(Set(values).count == 200)
        #expect(!Credentials.isWellFormed("too-short"))
        #expect(!Credentials.isWellFormed("has a space in it......"))
    }

    @Test func secretHashesAreSaltedAndVerify() {
        let a = SecretHash.make("correct horse battery1")
        let b = SecretHash.make("correct horse battery1")
        #expect(a != b)  // salted
        #expect(a.matches("correct horse battery1"))
        #expect(!a.matches("correct horse battery2"))
        #expect(!SecretHash(bytes: [1, 2, 3]).matches("x"))
    }

    @Test func authRecordsTellServerFromDevice() {
        let record = AppAuthRecord(
            id: 1, appKey: "k", appSecretHash: .make("app"), masterSecretHash: .make("master"))
        #expect(record.role(for: "master") == .server)
        #expect(record.role(for: "app") == .device)
        #expect(record.role(for: "other") == nil)
    }

    @Test func sealedKeysOpenOnlyWithTheSameKeyAndContext() throws {
        let key = MasterKey.random()
        let sealed = try key.seal(Array("secret pem".utf8), context: "apns-key:A")
        #expect(try key.open(sealed, context: "apns-key:A") == Array("secret pem".utf8))
        #expect(throws: (any Error).self) { try key.open(sealed, context: "apns-key:B") }
        #expect(throws: (any Error).self) { try MasterKey.random().open(sealed, context: "apns-key:A") }
    }

    @Test func masterKeysMustBe32BytesOfBase64() {
        #expect(throws: (any Error).self) { try MasterKey(base64: "c2hvcnQ=") }
        #expect(throws: Never.self) { try MasterKey(base64: String(repeating: "A", count: 43) + "=") }
    }

    @Test func apnsKeysMustBeP256PEM() throws {
        let pem = P256.Signing.PrivateKey().pemRepresentation
        let key = { (pem: String) throws(APNsKeyMaterial.ParseError) in
            try APNsKeyMaterial(teamID: "TEAM123456", keyID: "KEY1234567", environment: .development, pem: pem)
        }
        #expect(throws: Never.self) { try key(pem) }
        #expect(throws: APNsKeyMaterial.ParseError.notPEM) { try key("not a key") }
        let p384 = P384.Signing.PrivateKey().pemRepresentation
        #expect(throws: APNsKeyMaterial.ParseError.notP256) { try key(p384) }
    }
}
