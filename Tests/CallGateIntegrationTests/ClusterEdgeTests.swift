import CallGateClient
import CallGateProtocol
import CallGateServer
import Foundation
import LWS
import Testing
import TestSupport

/// deploy/nginx/callgate.conf with callgate-cluster.conf's upstream, in a real nginx in front of
/// three real nodes of a cluster: sockets spread over the nodes, and an upgrade a node refuses
/// with 503 (here: full) is passed on to another one, so the client never sees it.
@Suite("Cluster behind nginx")
struct ClusterEdgeTests {
    static let secret = "cluster-edge-secret"

    @Test func socketsSpreadOverTheNodesAndARefusedUpgradeGoesToTheNextNode() async throws {
        let redis = try ThrowawayRedis()
        defer { redis.stop() }
        let database = try await SharedPostgres.freshDatabase()
        let certificate = try await TestCertificate()
        func node(_ id: String, _ extra: [String] = []) throws -> GatewayProcess {
            try .clusterNode(id, redis: redis, database: database, secret: Self.secret, ["--trusted-proxy", "127.0.0.1/32"] + extra)
        }
        // Node c takes one connection: nginx's next socket to it is refused with 503.
        let nodes = try [node("a"), node("b"), node("c", ["--max-connections", "1"])]
        defer { nodes.forEach { $0.kill() } }
        let nginx = try await NginxProxy(nodePorts: nodes.map(\.port), certificate: certificate, perIPLimit: 100)
        defer { nginx.stop() }
        let loop = try ClientLoop(tls: ClientTLSTrust(caFile: certificate.certificateFile))
        defer { loop.stop() }
        let tokens = try await TokenService(secret: Self.secret)
        let numbers = try ["a", "b", "c"].reduce(into: [UInt64: String]()) { numbers, id in
            let lease = try redis.command("GET", "cg:{cluster}:node:\(id)")
            if let number = lease.split(separator: "|").last.flatMap({ UInt64($0) }) {
                numbers[number] = id
            }
        }

        var placed: [String: Int] = [:]
        var clients: [CallGateClient] = []
        for index in 0..<9 {
            let client = try await CallGateClient.open(
                host: "127.0.0.1", port: nginx.httpsPort, loop: loop, sourceAddress: "127.0.0.\(10 + index)", tls: .verified)
            let connected = try await client.connect(
                token: try await tokens.mint(user: User(uid: "user\(index)", name: "User \(index)"), ttl: 600).token)
            let node = UInt64(connected.connectionId).flatMap { numbers[$0 >> 44] } ?? "?"
            placed[node, default: 0] += 1
            clients.append(client)
        }
        #expect(placed.values.reduce(0, +) == 9, "every socket reached a node: \(placed)")
        #expect(placed["?"] == nil, "\(placed)")
        #expect((placed["a"] ?? 0) >= 3 && (placed["b"] ?? 0) >= 3, "least connections spreads them: \(placed)")
        #expect((placed["c"] ?? 0) <= 1, "the full node's 503s went to the others: \(placed)")
        for client in clients {
            _ = try await client.ping()
        }
    }
}
