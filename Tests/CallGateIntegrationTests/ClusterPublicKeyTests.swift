import CallGateClient
import CallGateProtocol
import CallGateServer
import Foundation
import TestSupport
import Testing

/// Cluster nodes started with public keys and no `--jwt-secret`: each signs call tokens with the
/// secret it derives from the cluster secret, so a call token one node mints is accepted by the
/// node that owns the session.
@Suite("Cluster nodes verifying with public keys only")
struct ClusterPublicKeyTests {
    @Test func aCallTokenMintedOnOneNodeJoinsASessionAnotherNodeOwns() async throws {
        let redis = try ThrowawayRedis()
        defer { redis.stop() }
        let database = try await SharedPostgres.freshDatabase()
        let keys = try TemporaryDirectory()
        try TestKeyPair.of(.ed25519).publicPEM.write(toFile: keys.path("edge.pem"), atomically: true, encoding: .utf8)
        let nodes = try ["a", "b"].map { id in
            try GatewayProcess(arguments: [
                "--cluster", redis.url, "--database", database, "--node-id", id, "--cluster-secret", GatewayProcess.clusterSecret,
                "--jwt-public-key", keys.path("edge.pem"),
            ])
        }
        defer {
            for node in nodes { _ = node.terminate() }
        }
        let loop = try ClientLoop()
        defer { loop.stop() }
        let signer = try await PrivateKeyTokenSigner(pem: try TestKeyPair.of(.ed25519).privatePEM, kid: "edge")
        var devices: [CallGateClient] = []
        for (uid, node) in [("alice", nodes[0]), ("bob", nodes[1])] {
            let device = try await CallGateClient.open(host: "127.0.0.1", port: node.port, loop: loop)
            _ = try await device.connect(token: try await signer.mint(user: User(uid: uid, name: uid), ttl: 600).token)
            devices.append(device)
        }
        let (alice, bob) = (devices[0], devices[1])
        let room = "meet:keys-\(UUID().uuidString.prefix(8))"
        _ = try await alice.joinSession(callToken: try await alice.generateToken(sessionId: room).callToken)
        let bobsToken = try await bob.generateToken(sessionId: room)
        let joined = try await bob.joinSession(callToken: bobsToken.callToken)
        #expect(joined.participants.map(\.uid) == ["alice", "bob"], "node a, the owner, took node b's call token")
        await expectError(.authError) {
            try await alice.joinSession(callToken: bobsToken.callToken)
        }
    }
}
