import CallGateClient
import CallGateCore
import CallGateProtocol
import CallGateServer
import CallGateStoreSQLite
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
import TestSupport

/// SIGTERM on the real executable drains before it stops: readiness 503 at once, the sockets
/// closed with 1012 and the hint over `--drain-seconds`, the call kept for the next start, exit
/// 0; a second signal cuts the drain short.
@Suite("Draining on SIGTERM")
struct DrainSignalTests {
    static let secret = "drain-test-secret"

    /// The gateway and a connected device of each of `uids`.
    private func gateway(
        drainSeconds: Int, _ uids: [String], in directory: TemporaryDirectory, loop: ClientLoop
    ) async throws -> (GatewayProcess, [CallGateClient]) {
        let gateway = try GatewayProcess(arguments: [
            "--database", directory.path("callgate.sqlite"), "--jwt-secret", Self.secret, "--admin-key", "k",
            "--drain-seconds", String(drainSeconds),
        ])
        let tokens = try await TokenService(secret: Self.secret)
        var devices: [CallGateClient] = []
        for uid in uids {
            let device = try await CallGateClient.open(host: "127.0.0.1", port: gateway.port, loop: loop)
            _ = try await device.connect(token: try await tokens.mint(user: User(uid: uid, name: uid), ttl: 600).token)
            devices.append(device)
        }
        return (gateway, devices)
    }

    @Test func sigtermDrainsTheSocketsOverTheWindowKeepsTheCallAndExitsZero() async throws {
        let directory = try TemporaryDirectory()
        let loop = try ClientLoop()
        defer { loop.stop() }
        let (gateway, devices) = try await gateway(drainSeconds: 2, ["alice", "bob", "carol", "dave"], in: directory, loop: loop)
        let call = try await devices[0].establishCall(with: devices[1], uid: "bob")

        let signalled = ContinuousClock.now
        gateway.send(SIGTERM)
        let notReady = try await eventually(within: 1) {
            let (_, response) = try await URLSession.shared.data(from: URL(string: "http://127.0.0.1:\(gateway.port)/readyz")!)
            return (response as? HTTPURLResponse)?.statusCode == 503
        }
        #expect(notReady, "readiness says 503 as soon as the drain begins")
        var closedAfter: [Duration] = []
        for device in devices {
            #expect(try await device.expectClose(within: .seconds(10)) == CloseCode.serviceRestart)
            #expect(device.reconnectHint == ReconnectHint.gateway)
            closedAfter.append(ContinuousClock.now - signalled)
        }
        closedAfter.sort()
        #expect(closedAfter.last! >= .milliseconds(1500), "the closes are spread over the 2 s window: \(closedAfter)")
        #expect(try await gateway.exitStatus(within: .seconds(10)) == 0)

        let open = try SQLiteCallLogStore(path: directory.path("callgate.sqlite")).openCalls()
        #expect(open.map(\.sessionId) == [call.sessionId], "the call is resumed on the next start")
    }

    @Test(arguments: [SIGTERM, SIGINT])
    func aSecondSignalCutsTheDrainShort(_ second: Int32) async throws {
        let directory = try TemporaryDirectory()
        let loop = try ClientLoop()
        defer { loop.stop() }
        let (gateway, devices) = try await gateway(drainSeconds: 600, ["alice", "bob"], in: directory, loop: loop)
        gateway.send(SIGTERM)
        #expect(try await devices[0].expectClose(within: .seconds(5)) == CloseCode.serviceRestart, "the first of two goes at once")
        await devices[1].expectSilence(for: .milliseconds(500))

        let signalled = ContinuousClock.now
        gateway.send(second)
        #expect(try await devices[1].expectClose(within: .seconds(5)) == CloseCode.serviceRestart)
        #expect(devices[1].reconnectHint == ReconnectHint.gateway)
        #expect(try await gateway.exitStatus(within: .seconds(10)) == 0)
        #expect(ContinuousClock.now - signalled < .seconds(5), "stopped at once, not after the 600 s window")
    }
}
