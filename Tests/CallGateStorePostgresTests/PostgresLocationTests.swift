import CallGateStorePostgres
import Testing

/// `--database postgres://...`: what is accepted, and what a mistake is told.
@Suite struct PostgresLocationTests {
    @Test func anAddressWithEveryPart() throws {
        let location = try PostgresLocation("postgres://gate:s%40cret@db.example.com:6543/calls?sslmode=require")
        #expect(location.host == "db.example.com" && location.port == 6543 && location.user == "gate")
        #expect(location.database == "calls" && location.sslMode == "require")
        #expect(location.description == "postgres://gate@db.example.com:6543/calls?sslmode=require")
        #expect(!location.description.contains("cret"))
    }

    @Test func theDefaultsAreLibpqs() throws {
        let location = try PostgresLocation("postgresql://gate@/calls")
        #expect(location.host == "localhost" && location.port == 5432 && location.sslMode == "prefer")
    }

    @Test func onlyPostgresAddressesAreNamed() {
        #expect(PostgresLocation.names("postgres://a@b/c") && PostgresLocation.names("POSTGRESQL://a@b/c"))
        #expect(!PostgresLocation.names("/var/lib/callgate/callgate.sqlite"))
        #expect(!PostgresLocation.names("postgres.sqlite"))
    }

    @Test(arguments: [
        ("postgres://db/calls", "no user"),
        ("postgres://gate@db", "no database"),
        ("postgres://gate@db/", "no database"),
        ("postgres://gate@db/a/b", "no database"),
        ("postgres://gate@db/calls?sslmode=allow", "sslmode must be"),
        ("postgres://gate@db/calls?connect_timeout=3", "unknown PostgreSQL address parameter"),
        ("mysql://gate@db/calls", "expected postgres://"),
    ])
    func mistakesAreNamed(address: String, message: String) {
        #expect {
            try PostgresLocation(address)
        } throws: { error in
            "\(error)".contains(message)
        }
    }

    @Test func aPasswordNeverAppearsInAProblem() {
        #expect {
            try PostgresLocation("postgres://gate:hunter2@db/calls?sslmode=nope")
        } throws: { error in
            !"\(error)".contains("hunter2")
        }
    }
}
