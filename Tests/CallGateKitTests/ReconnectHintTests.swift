import CallGateKit
import CallGateProtocol
import Foundation
import Testing

/// A draining node's 1012 and its reconnect hint: the connection reconnects when the hint says,
/// not after its backoff; a reason that is not a hint leaves the backoff as it is.
@Suite struct KitReconnectHintTests {
    /// A connection whose backoff would wait 30 s, connected through `gateway`.
    private func connected(_ gateway: ScriptedGateway) async throws -> (CallGateConnection, ScriptedSocket) {
        let configuration = CallGateConfiguration(
            url: ConnectionEdgeTests.url, token: "T1", firstRetryDelay: .seconds(30), maxRetryDelay: .seconds(30))
        let connection = CallGateConnection(configuration: configuration, transport: gateway)
        return (connection, try await ConnectionEdgeTests.connect(connection, gateway))
    }

    @Test func a1012WithAHintReconnectsWithinIt() async throws {
        let gateway = ScriptedGateway()
        let (connection, socket) = try await connected(gateway)
        let events = await connection.events()
        await socket.finish(code: CloseCode.serviceRestart, reason: ReconnectHint(withinMilliseconds: 300).reason)
        var delay: Duration?
        for await event in events {
            if case .reconnecting(let attempt, let wait) = event {
                #expect(attempt == 1)
                delay = wait
                break
            }
        }
        let wait = try #require(delay)
        #expect(wait >= .zero && wait <= .milliseconds(300), "drawn within the hint: \(wait)")
        let next = try #require(await gateway.nextSocket(after: 1), "reconnected well before the 30 s backoff")
        guard case .object(let frame)? = await next.nextRequest(within: .seconds(3)), case .object(let data)? = frame["data"] else {
            Issue.record("no connect on the new socket")
            return
        }
        #expect(data["recover"] != nil, "the move recovers what it missed")
        await connection.close()
    }

    @Test(arguments: ["", "going away", #"{"reconnectWithinMs":-1}"#, #"{"reconnectWithinMs":60001}"#, #"{"reconnectWithinMs":1.5}"#, "[2000]"])
    func aReasonThatIsNoHintKeepsTheBackoff(_ reason: String) async throws {
        let gateway = ScriptedGateway()
        let (connection, socket) = try await connected(gateway)
        await socket.finish(code: CloseCode.serviceRestart, reason: reason)
        try await Task.sleep(for: .milliseconds(400))
        #expect(await gateway.sockets.count == 1, "no reconnect before the backoff's 22.5 s at the least")
        await connection.close()
    }
}
