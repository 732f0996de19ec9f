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

    @Test(arguments: [
        ("mysql://a@b/c", "postgres://"), ("postgres://a@host", "database"), ("postgres://host/db", "user"),
        ("postgres://a@h/d?sslmode=maybe", "sslmode"),
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
