import LiveActivitiesCore
import PostgresStore
import Testing

@Suite struct DatabaseURLTests {
    @Test func parsesAFullURL() throws {
        let url = try DatabaseURL("postgres://app:p%40ss@db.internal:6543/gateway?sslmode=require")
        #expect(url.host == "db.internal" && url.port == 6543 && url.username == "app")
        #expect(url.password == "p@ss" && url.database == "gateway" && url.tls == .require)
    }

    @Test func defaultsPortAndTLS() throws {
        let url = try DatabaseURL("postgresql://app@localhost/gateway")
        #expect(url.port == 5432 && url.tls == .disable && url.password == nil)
    }

    /// libpq's multi-host syntax: `host:port` pairs separated by commas, each port optional, IPv6 in brackets.
    @Test func parsesSeveralServersAndTheirTarget() throws {
        let url = try DatabaseURL(
            "postgres://app@10.0.0.1:6001,db-b,[::1]:6003/gateway?target_session_attrs=read-write&sslmode=prefer")
        #expect(
            url.servers == [
                .init(host: "10.0.0.1", port: 6001), .init(host: "db-b", port: 5432), .init(host: "::1", port: 6003),
            ])
        #expect(url.targetSessionAttributes == .readWrite && url.tls == .prefer && url.database == "gateway")
        #expect(url.host == "10.0.0.1" && url.port == 6001)
        #expect(try DatabaseURL("postgres://app@db/gateway").targetSessionAttributes == .any)
    }

    @Test(arguments: [
        ("mysql://a@b/c", "postgres://"), ("postgres://a@host", "database"), ("postgres://host/db", "user"),
        ("postgres://a@h/d?sslmode=maybe", "sslmode"), ("postgres://a@h1,,h2/d", "host"),
        ("postgres://a@h1:70000/d", "port"), ("postgres://a@h1:x/d", "port"),
        ("postgres://a@h1,h2/d?target_session_attrs=writable", "target_session_attrs must be one of any, read-write"),
    ])
    func rejectsWithAReason(input: String, mentions: String) {
        #expect {
            try DatabaseURL(input)
        } throws: { error in
            (error as? DatabaseURL.ParseError)?.reason.contains(mentions) == true
        }
    }

    @Test func settingsNameTheBadSetting() {
        let resolve = SettingsResolver(environment: ["DATABASE_URL": "nope", "WORKERS": "x"])
        #expect(throws: ConfigError.self) { try resolve.databaseURL(CommonSettings.databaseURL, flag: nil) }
        do {
            _ = try resolve.databaseURL(CommonSettings.databaseURL, flag: nil)
        } catch {
            #expect("\(error)".hasPrefix("configuration error: DATABASE_URL (--database-url): "))
        }
        let workers = Setting(flag: "workers", environment: "WORKERS")
        #expect(throws: ConfigError.self) { try resolve.integer(workers, flag: nil, default: 1, range: 1...4) }
        #expect(try! resolve.integer(workers, flag: "3", default: 1, range: 1...4) == 3)  // the flag wins
    }
}
