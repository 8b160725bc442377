import CallGateClient
import CallGateProtocol
import Foundation
import Testing

/// A burst of connects on the PostgreSQL store, as after a node's death or a deploy: each reads
/// its user's missed-call count from the database. Those reads block threads of their own
/// (`StoreReads`); on Dispatch's global threads they starved the Swift tasks that finish the
/// PostgreSQL queries, and the connects timed out (4001 after 10 s).
@Suite("A burst of connects on PostgreSQL", .serialized)
struct ConnectBurstTests {
    @Test func twoHundredConnectsAtOnceAreAllAnswered() async throws {
        let gateway = try await TestGateway(store: .postgres)
        defer { gateway.shutdown() }
        var sockets: [CallGateClient] = []
        for _ in 0..<200 {
            sockets.append(try await gateway.socket())
        }
        let tokens = try await withThrowingTaskGroup(of: String.self) { group in
            for index in sockets.indices {
                group.addTask { try await gateway.token("burst\(index)") }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        let started = ContinuousClock.now
        let answered = await withTaskGroup(of: Bool.self) { group in
            for (socket, token) in zip(sockets, tokens) {
                group.addTask { (try? await socket.connect(token: token)) != nil }
            }
            return await group.reduce(0) { $0 + ($1 ? 1 : 0) }
        }
        #expect(answered == 200, "\(200 - answered) connects were not answered")
        #expect(ContinuousClock.now - started < .seconds(9), "before the 10 s connect deadline closes any")
        let metrics = try await gateway.scrape()
        #expect(metrics[#"callgate_auth_failures_total{reason="connect_timeout"}"#] == 0)
    }
}
