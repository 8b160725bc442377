import CallGateCluster
import CallGateCore
import CallGateProtocol
@testable import CallGateServer
import CallGateStorePostgres
import Foundation
import LWS
import Logging
import TestSupport

/// A gateway in this process on one kind of fabric, driven without sockets: its devices are
/// `TestSocket`s opened through the hub, their frames handed to the service on its thread, and
/// what the service writes to them read back there. The cluster kind runs on a throwaway Redis
/// and PostgreSQL of its own. Call `stop()` at the end.
final class FabricFixture: @unchecked Sendable {
    /// Which fabric the gateway runs on.
    enum Kind: String, CaseIterable, Sendable {
        case local, cluster
    }

    static let secret = "fabric-conformance-secret"

    let server: GatewayServer
    let tokens: TokenService
    private let redis: ThrowawayRedis?
    private let postgres: ThrowawayPostgres?
    private let store: any CallLogStore
    /// The next socket id; service thread only.
    private var nextSocket: UInt64 = 1 << 40

    private init(
        server: GatewayServer, tokens: TokenService, store: any CallLogStore, redis: ThrowawayRedis?,
        postgres: ThrowawayPostgres?
    ) {
        self.server = server
        self.tokens = tokens
        self.store = store
        self.redis = redis
        self.postgres = postgres
    }

    /// Starts a gateway on a fabric of `kind`; `adjust` may change the configuration first.
    static func start(_ kind: Kind, _ adjust: (inout ServerConfiguration) -> Void = { _ in }) async throws -> FabricFixture {
        var configuration = ServerConfiguration(jwtSecret: secret, adminKey: "fabric-admin")
        configuration.port = 0
        configuration.maxMessagesPerSecond = 0
        var redis: ThrowawayRedis?
        var postgres: ThrowawayPostgres?
        switch kind {
        case .local:
            configuration.store = InMemoryCallLogStore()
        case .cluster:
            let database = try ThrowawayPostgres()
            postgres = database
            let url = try database.createDatabase("fabric")
            var logger = Logger(label: "fabric-test.postgres")
            logger.logLevel = .critical
            configuration.store = try await PostgresCallLogStore.open(PostgresLocation(url), logger: logger)
            let server = try ThrowawayRedis()
            redis = server
            configuration.cluster = ClusterConfiguration(
                redis: try RedisEndpoint(parsing: server.url), nodeID: "a",
                signature: BusSignature(secret: Array("fabric-conformance-bus-secret-0123456789".utf8))!)
        }
        adjust(&configuration)
        var logger = Logger(label: "fabric-test")
        logger.logLevel = .critical
        let server = try await GatewayServer.start(configuration, logger: logger)
        return FabricFixture(
            server: server, tokens: try await TokenService(secret: secret), store: configuration.store, redis: redis,
            postgres: postgres)
    }

    func stop() {
        server.stop()
        (store as? PostgresCallLogStore)?.close()
        redis?.stop()
        postgres?.stop()
    }

    var service: GatewayService { server.service }

    /// Runs `body` on the service thread and returns what it returns.
    func onServiceThread<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { continuation in
            server.service.context.post { continuation.resume(returning: body()) }
        }
    }

    /// A socket just opened, no `connect` sent.
    func open() async -> Device {
        let socket: TestSocket = await onServiceThread { [self] in
            nextSocket += 1
            let socket = TestSocket(id: nextSocket)
            service.hub.opened(socket)
            return socket
        }
        return Device(socket: socket, fixture: self)
    }

    /// A device of `uid` that sent `connect` (with `recover`, when given) and got its answer.
    func device(_ uid: String, recover: [String: Any]? = nil) async throws -> (device: Device, reply: [String: Any]) {
        let device = await open()
        var data: [String: Any] = ["token": try await tokens.mint(user: User(uid: uid, name: uid), ttl: 3600).token]
        data["recover"] = recover
        let reply = try await device.reply(to: device.send("connect", data))
        return (device, reply)
    }
}

/// One device of a `FabricFixture`: what it sends goes to the service as the hub would hand it
/// on; what the service wrote to it is read back as JSON.
final class Device: @unchecked Sendable {
    struct NoReply: Error, CustomStringConvertible {
        let description: String
    }

    let socket: TestSocket
    let fixture: FabricFixture
    private var requests = 0

    init(socket: TestSocket, fixture: FabricFixture) {
        self.socket = socket
        self.fixture = fixture
    }

    var id: ConnectionID { ConnectionID(socket.id) }

    /// Sends request `op` with `data`; returns its id.
    @discardableResult
    func send(_ op: String, _ data: [String: Any] = [:]) async -> String {
        requests += 1
        let requestID = "r\(requests)"
        let bytes = Array(try! JSONSerialization.data(withJSONObject: ["id": requestID, "op": op, "data": data]))
        let id = id
        await fixture.onServiceThread { [fixture] in
            fixture.service.hub.received(bytes, binary: false, on: id)
        }
        return requestID
    }

    /// Every frame written to the socket so far, parsed.
    func frames() async -> [[String: Any]] {
        let bytes = await fixture.onServiceThread { [socket] in socket.sent.map(\.bytes) }
        return bytes.compactMap { try? JSONSerialization.jsonObject(with: Data($0)) as? [String: Any] }
    }

    /// The pushes written so far, in order.
    func pushes() async -> [[String: Any]] {
        await frames().filter { $0["event"] != nil }
    }

    /// The answer to request `requestID`, waited for up to 5 s.
    func reply(to requestID: String) async throws -> [String: Any] {
        let deadline = ContinuousClock.now + .seconds(5)
        while ContinuousClock.now < deadline {
            if let found = await frames().first(where: { $0["id"] as? String == requestID }) {
                return found
            }
            try await Task.sleep(for: .milliseconds(10))
        }
        throw NoReply(description: "no answer to \(requestID)")
    }

    /// The answer to op `op` with `data`.
    func ask(_ op: String, _ data: [String: Any] = [:]) async throws -> [String: Any] {
        try await reply(to: send(op, data))
    }

    /// The code the socket was closed with, nil while it is open.
    func closeCode() async -> UInt16? {
        await fixture.onServiceThread { [socket] in socket.closed?.code }
    }

    /// Closes the socket from the client's side, as libwebsockets reports a close.
    func close() async {
        let socket = socket
        await fixture.onServiceThread { [fixture] in
            fixture.service.hub.socketClosed(socket)
        }
    }
}

extension [String: Any] {
    /// The error code of a failed reply, nil for a success.
    var errorCode: String? {
        (self["error"] as? [String: Any])?["code"] as? String
    }

    /// The result object of a successful reply.
    var result: [String: Any] {
        self["result"] as? [String: Any] ?? [:]
    }
}
