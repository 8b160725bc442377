import CallGateCluster
import Testing

@Suite struct RedisEndpointTests {
    @Test func readsHostPortDatabaseAndLogin() throws {
        let plain = try RedisEndpoint(parsing: "redis://10.0.0.7")
        #expect(plain.host == "10.0.0.7" && plain.port == 6379 && plain.database == 0)
        #expect(plain.user == nil && plain.password == nil)
        let full = try RedisEndpoint(parsing: "redis://gateway:s%40cret@redis.internal:6380/3")
        #expect(full.host == "redis.internal" && full.port == 6380 && full.database == 3)
        #expect(full.user == "gateway" && full.password == "s@cret")
        let passwordOnly = try RedisEndpoint(parsing: "redis://:pw@[::1]:7000")
        #expect(passwordOnly.host == "::1" && passwordOnly.user == nil && passwordOnly.password == "pw")
    }

    @Test func hidesThePasswordWhenPrinted() throws {
        let endpoint = try RedisEndpoint(parsing: "redis://gateway:secret@[::1]:6380/2")
        #expect(endpoint.description == "redis://gateway:***@[::1]:6380/2")
        #expect(!endpoint.description.contains("secret"))
    }

    @Test(arguments: [
        ("rediss://host:6379", "no TLS"), ("http://host", "unsupported scheme"), ("redis://", "no host"),
        ("redis://host:0", "out of range"), ("redis://host/x", "not a number"), ("redis://host/-1", "not a number"),
        ("redis://host/99999999999", "not a number"), ("redis://host?timeout=1", "query"),
        ("redis://user@host", "needs a password"), ("not a url at all", "expected redis://"),
    ])
    func refusesWhatItCannotUse(url: String, reason: String) {
        #expect {
            try RedisEndpoint(parsing: url)
        } throws: { error in
            "\(error)".contains(reason)
        }
    }
}
