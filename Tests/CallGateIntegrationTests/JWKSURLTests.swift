import CallGateClient
import CallGateProtocol
import CallGateServer
import Foundation
import TestSupport
import Testing

/// Keys from a JWKS URL, served by a real HTTP server: read at start, picked up by `kid` when the
/// backend rotates, dropped when it stops publishing them, and read again no more often than the
/// cooldown allows, whatever tokens arrive.
@Suite("Token keys from a JWKS URL")
struct JWKSURLTests {
    /// A fresh EC key, its public half published as `kid`.
    struct PublishedKey {
        let kid: String
        let pair: TestKeyPair

        init(_ kid: String) throws {
            self.kid = kid
            pair = try TestKeyPair.make(.ec)
        }

        var jwk: [String: String] {
            get throws { try pair.jwk(kid: kid) }
        }

        /// A token for `uid` signed with this key.
        func token(_ uid: String) async throws -> String {
            try await PrivateKeyTokenSigner(pem: pair.privatePEM, kid: kid).mint(user: User(uid: uid, name: uid), ttl: 600).token
        }
    }

    /// A gateway verifying connection tokens with the keys `server` publishes only.
    static func gateway(
        reading server: JWKSServer, cooldown: Duration = .seconds(1), refresh: Duration = .seconds(300)
    ) async throws -> TestGateway {
        try await gateway(reading: server.url, cooldown: cooldown, refresh: refresh)
    }

    /// A gateway verifying connection tokens with the keys at `url` only.
    static func gateway(
        reading url: String, cooldown: Duration = .seconds(1), refresh: Duration = .seconds(300)
    ) async throws -> TestGateway {
        try await TestGateway {
            $0.jwtPublicKeys.jwksURL = url
            $0.jwtPublicKeys.jwksCooldown = cooldown
            $0.jwtPublicKeys.jwksRefreshInterval = refresh
            $0.jwtPublicKeys.jwksTimeout = .seconds(1)
            $0.secretVerifiesConnections = false
        }
    }

    /// Whether `gateway` accepts a `connect` with `token`.
    static func accepts(_ gateway: TestGateway, _ token: String) async throws -> Bool {
        let socket = try await gateway.socket()
        let accepted: Bool
        do {
            _ = try await socket.connect(token: token)
            accepted = true
        } catch let error as ErrorBody where error.code == .authError {
            accepted = false
        }
        await socket.close()
        return accepted
    }

    @Test func aRotationIsPickedUpByKidAndARemovedKeyStopsVerifyingAfterTheNextRead() async throws {
        let first = try PublishedKey("2026-01")
        let second = try PublishedKey("2026-02")
        let server = try await JWKSServer(serving: try TestKeyPair.jwks([try first.jwk]))
        let gateway = try await Self.gateway(reading: server)
        defer {
            gateway.shutdown()
        }
        #expect(try await Self.accepts(gateway, try await first.token("alice")))
        #expect(try await !Self.accepts(gateway, try await second.token("bob")), "not published yet")

        server.publish(try TestKeyPair.jwks([try first.jwk, try second.jwk]))
        try await Task.sleep(for: .milliseconds(1100))
        #expect(try await Self.accepts(gateway, try await second.token("bob")), "an unknown kid made it read again")
        #expect(try await Self.accepts(gateway, try await first.token("alice")), "both verify during the rotation")

        server.publish(try TestKeyPair.jwks([try second.jwk]))
        try await Task.sleep(for: .milliseconds(1100))
        #expect(try await !Self.accepts(gateway, try await PublishedKey("2026-03").token("eve")), "unknown: a read")
        #expect(try await !Self.accepts(gateway, try await first.token("alice")), "the read dropped the old key")
        #expect(try await Self.accepts(gateway, try await second.token("bob")))
        await server.stop()
    }

    @Test func thePeriodicReadDropsAKeyNoTokenAskedAbout() async throws {
        let old = try PublishedKey("old")
        let new = try PublishedKey("new")
        let server = try await JWKSServer(serving: try TestKeyPair.jwks([try old.jwk, try new.jwk]))
        let gateway = try await Self.gateway(reading: server, cooldown: .seconds(10), refresh: .seconds(10))
        defer { gateway.shutdown() }
        let started = ContinuousClock.now
        #expect(try await Self.accepts(gateway, try await old.token("alice")))
        server.publish(try TestKeyPair.jwks([try new.jwk]))
        var accepted = true
        while accepted, ContinuousClock.now - started < .seconds(25) {
            try await Task.sleep(for: .milliseconds(500))
            accepted = try await Self.accepts(gateway, try await old.token("alice"))
        }
        #expect(!accepted, "refused once the periodic read dropped it")
        #expect(ContinuousClock.now - started >= .seconds(9), "not before the refresh interval")
        #expect(server.requests == 2)
        await server.stop()
    }

    @Test func unknownKidsCannotMakeTheGatewayHammerTheURL() async throws {
        let key = try PublishedKey("only")
        let server = try await JWKSServer(serving: try TestKeyPair.jwks([try key.jwk]))
        let gateway = try await Self.gateway(reading: server, cooldown: .seconds(2))
        defer { gateway.shutdown() }
        #expect(server.requests == 1, "read once at start")
        let strangers = try (0..<20).map { try PublishedKey("stranger-\($0)") }
        let burst = { () async throws -> [Bool] in
            try await withThrowingTaskGroup(of: Bool.self) { group in
                for stranger in strangers {
                    group.addTask { try await Self.accepts(gateway, try await stranger.token("eve")) }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
        }
        #expect(try await burst().allSatisfy { !$0 })
        #expect(server.requests == 1, "within the cooldown of the read at start: no read")
        try await Task.sleep(for: .milliseconds(2100))
        #expect(try await burst().allSatisfy { !$0 })
        #expect(server.requests == 2, "twenty unknown kids at once: one read")
        #expect(try await Self.accepts(gateway, try await key.token("alice")))
        _ = try await gateway.scrape { $0[#"callgate_auth_failures_total{reason="unknown_key"}"#] == 40 }
        await server.stop()
    }

    @Test func aFailedReadKeepsTheKeysThereWere() async throws {
        let key = try PublishedKey("kept")
        let server = try await JWKSServer(serving: try TestKeyPair.jwks([try key.jwk]))
        let gateway = try await Self.gateway(reading: server)
        defer { gateway.shutdown() }
        for answer in [
            JWKSServer.Answer(status: .internalServerError), JWKSServer.Answer(body: Data("{\"keys\": []}".utf8)),
            JWKSServer.Answer(body: Data(count: 2 << 20)), JWKSServer.Answer(body: try TestKeyPair.jwks([try key.jwk]), delay: .seconds(3)),
        ] {
            let reads = server.requests
            server.answer(answer)
            try await Task.sleep(for: .milliseconds(1100))
            #expect(try await !Self.accepts(gateway, try await PublishedKey("unknown").token("eve")))
            #expect(server.requests == reads + 1)
            #expect(try await Self.accepts(gateway, try await key.token("alice")))
        }
        await server.stop()
    }

    @Test(arguments: ["404", "not a JWKS", "too big", "too slow", "no key it uses", "nobody listening"])
    func theGatewayDoesNotStartWithoutItsFirstKeys(_ problem: String) async throws {
        let server = try await JWKSServer(serving: Data())
        let url = server.url
        let expected: String
        switch problem {
        case "404":
            server.answer(JWKSServer.Answer(status: .notFound))
            expected = "answered 404"
        case "not a JWKS":
            server.publish(Data("<html>".utf8))
            expected = "not a JWKS"
        case "too big":
            server.publish(Data(count: (1 << 20) + 1))
            expected = "at most 1048576 are read"
        case "too slow":
            server.answer(JWKSServer.Answer(body: Data("{}".utf8), delay: .seconds(3)))
            expected = "within"
        case "no key it uses":
            server.publish(try TestKeyPair.jwks([try TestKeyPair.of(.p384).jwk(kid: "p384")]))
            expected = "holds no key the gateway verifies with"
        default:
            await server.stop()
            expected = url
        }
        do {
            let gateway = try await Self.gateway(reading: url)
            gateway.shutdown()
            Issue.record("the gateway started")
        } catch let error as TokenKeyError {
            #expect(error.description.contains(expected), "\(error)")
            #expect(error.description.contains(url), "\(error)")
        }
        await server.stop()
    }
}
