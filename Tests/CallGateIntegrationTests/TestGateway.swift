import CallGateClient
import CallGateCore
import CallGateProtocol
import CallGateServer
import CallGateStorePostgres
import Foundation
import Logging
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A real gateway on a free port, on a real SQLite file in a temporary directory (or a real
/// PostgreSQL database), plus a client loop, for one test. Call `shutdown()` at the end.
final class TestGateway: @unchecked Sendable {
    static let secret = "integration-test-secret"
    static let adminKey = "integration-admin-key"

    let server: GatewayServer
    let loop: ClientLoop
    let tokens: TokenService
    /// Holds the SQLite database; removed with the gateway.
    let directory: TemporaryDirectory
    /// The SQLite file or PostgreSQL URL the gateway's store is on.
    let database: String
    /// The store the gateway was given, closed at `shutdown()`.
    private let store: any CallLogStore

    var port: Int { server.port }

    /// Starts a gateway with test-sized timeouts on `store`; `adjust` may change the
    /// configuration first. With `directory` (SQLite) or `database` (either), it uses the data a
    /// previous gateway left there: a restart.
    init(
        store kind: TestStore = .sqlite, directory: TemporaryDirectory? = nil, database: String? = nil,
        _ adjust: (inout ServerConfiguration) -> Void = { _ in }
    ) async throws {
        self.directory = try directory ?? TemporaryDirectory()
        if let database {
            self.database = database
        } else {
            self.database = try await kind.database(in: self.directory)
        }
        var configuration = ServerConfiguration(jwtSecret: Self.secret, adminKey: Self.adminKey)
        configuration.store = try await openTestStore(self.database)
        configuration.port = 0
        configuration.core.callerGracePeriod = .seconds(1)
        configuration.core.participantGracePeriod = .seconds(1)
        adjust(&configuration)
        store = configuration.store
        var logger = Logger(label: "callgate-test")
        logger.logLevel = .warning
        server = try await GatewayServer.start(configuration, logger: logger)
        loop = try ClientLoop()
        tokens = try await TokenService(secret: Self.secret)
    }

    /// Stops the gateway, then the client loop: with the clients still running, every close
    /// handshake completes at once, so the stop (which blocks its thread) takes milliseconds
    /// instead of waiting out the close grace for clients that can no longer answer.
    func shutdown() {
        server.stop()
        loop.stop()
        (store as? PostgresCallLogStore)?.close()
    }

    /// A token for `uid`, valid for `ttl` seconds.
    func token(_ uid: String, name: String? = nil, ttl: Int = 3600) async throws -> String {
        try await tokens.mint(user: User(uid: uid, name: name ?? uid.capitalized), ttl: ttl).token
    }

    /// An open socket that has not sent `connect`.
    func socket(recorder: FrameRecorder? = nil) async throws -> CallGateClient {
        try await CallGateClient.open(host: "127.0.0.1", port: port, loop: loop, recorder: recorder)
    }

    /// A connected device of `uid`.
    func device(_ uid: String, recorder: FrameRecorder? = nil) async throws -> CallGateClient {
        let client = try await socket(recorder: recorder)
        _ = try await client.connect(token: try await token(uid))
        return client
    }

    /// A connected device of `uid` that reconnects and recovers when its socket drops.
    func reconnectingDevice(_ uid: String) async throws -> ReconnectingClient {
        try await ReconnectingClient.connect(
            to: ReconnectingClient.Target(host: "127.0.0.1", port: port), loop: loop
        ) { try await self.token(uid) }.0
    }

    /// Sends an admin request and returns the status and the body.
    func admin(_ method: String, _ path: String, json: String? = nil, key: String? = adminKey) async throws -> (Int, Data) {
        try await adminRequest(port: port, method, path, json: json, key: key)
    }

    /// Creates or replaces a group through the admin API.
    func putGroup(_ guid: String, members: [String]) async throws {
        let body = #"{"name":"\#(guid)","members":[\#(members.map { "\"\($0)\"" }.joined(separator: ","))]}"#
        let (status, _) = try await admin("PUT", "/v1/groups/\(guid)", json: body)
        precondition(status == 200, "PUT group answered \(status)")
    }
}

/// Sends an admin request (with `key` as the bearer token, and `json` as the body) to the gateway
/// on `port` of this host, and returns the status and the body.
func adminRequest(port: Int, _ method: String, _ path: String, json: String? = nil, key: String?) async throws -> (Int, Data) {
    var request = URLRequest(url: URL(string: "http://127.0.0.1:\(port)\(path)")!)
    request.httpMethod = method
    if let key {
        request.setValue("Bearer \(key)", forHTTPHeaderField: "Authorization")
    }
    if let json {
        request.httpBody = Data(json.utf8)
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
    }
    let (data, response) = try await URLSession.shared.data(for: request)
    return ((response as? HTTPURLResponse)?.statusCode ?? 0, data)
}
