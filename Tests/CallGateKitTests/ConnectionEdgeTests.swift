import CallGateKit
import CallGateProtocol
import Foundation
import Testing

/// What a connection does at the edges a hostile or broken gateway, or an app in a hurry,
/// reaches: a scripted gateway plays the server's side.
@Suite struct ConnectionEdgeTests {
    static let url = URL(string: "ws://gateway.test/ws")!

    /// A connect result, with members replaced by `changes`.
    static func connectResult(_ changes: [String: JSONValue] = [:]) -> JSONValue {
        let now = Date().timeIntervalSince1970
        var result: [String: JSONValue] = [
            "user": .object(["uid": .string("bob"), "name": .string("Bob")]), "connectionId": .string("c1"),
            "serverTime": .number((now * 1000).rounded(.down)), "activeCalls": .array([]),
            "tokenExpiresAt": .number(now.rounded(.down) + 3600), "epoch": .string("e1"), "seq": .number(0),
            "resumedSessions": .array([]),
        ]
        result.merge(changes) { $1 }
        return .object(result)
    }

    /// Connects `connection` through `gateway`, answering its connect with `result`.
    static func connect(_ connection: CallGateConnection, _ gateway: ScriptedGateway, result: JSONValue = connectResult()) async throws
        -> ScriptedSocket
    {
        let connecting = Task { try await connection.connect() }
        let socket = try #require(await gateway.nextSocket())
        let request = try #require(await socket.nextRequest(within: .seconds(3)))
        guard case .object(let frame) = request else { throw ScriptFailure.notAnObject }
        try await socket.deliver(.object(["id": frame["id"] ?? .null, "result": result]))
        _ = try await connecting.value
        return socket
    }

    enum ScriptFailure: Error {
        case notAnObject
    }

    @Test func requestsBeforeConnectFailAsDisconnected() async throws {
        let connection = CallGateConnection(configuration: CallGateConfiguration(url: Self.url, token: "T1"), transport: ScriptedGateway())
        await #expect(throws: CallGateConnectionError.disconnected(code: nil)) {
            _ = try await connection.ping()
        }
    }

    @Test func closeEndsTheSocketAtOnceAndLateFramesAreIgnored() async throws {
        let gateway = ScriptedGateway()
        let connection = CallGateConnection(configuration: CallGateConfiguration(url: Self.url, token: "T1"), transport: gateway)
        let events = await connection.events()
        let socket = try await Self.connect(connection, gateway)
        let pinging = Task { try await connection.ping() }
        _ = await socket.nextRequest(within: .seconds(3))
        await connection.close()
        await #expect(throws: CallGateConnectionError.self) { _ = try await pinging.value }
        // The scripted gateway never answers the close frame; a push it sends after is not the app's.
        let push: JSONValue = .object([
            "event": .string("onSessionTimeout"), "data": .object(["sessionId": .string("s1")]), "seq": .number(1),
        ])
        try? await socket.deliver(push)
        var names: [String] = []
        for await event in events {
            switch event {
            case .open: names.append("open")
            case .closed(let code, _, let willReconnect):
                names.append("closed \(code.map(String.init) ?? "-") \(willReconnect)")
            case .push(let push): names.append(push.event.rawValue)
            default: break
            }
            if names.count == 2 { break }
        }
        #expect(names == ["open", "closed 1000 false"])
        try await Task.sleep(for: .milliseconds(100))
        #expect(await gateway.sockets.count == 1, "a closed connection must not reconnect")
    }

    @Test func hostileTimesAndSequenceNumbersDoNotTrap() async throws {
        let gateway = ScriptedGateway()
        let configuration = CallGateConfiguration(url: Self.url, token: "T1", fetchToken: { "T2" })
        let connection = CallGateConnection(configuration: configuration, transport: gateway)
        let hostile = Self.connectResult([
            "serverTime": .number(-9.2e18), "tokenExpiresAt": .number(9.2e18), "seq": .number(9.0e18),
            "epoch": .string(String(repeating: "e", count: 500)),
        ])
        let socket = try await Self.connect(connection, gateway, result: hostile)
        _ = await connection.serverNowMillis
        let push: JSONValue = .object([
            "event": .string("onSessionTimeout"), "data": .object(["sessionId": .string("s1")]), "seq": .number(9.0e18),
        ])
        try await socket.deliver(push)
        await socket.finish(code: nil, reason: "")
        // The next connect carries no recover: nothing a recover could carry was followed.
        let next = try #require(await gateway.nextSocket(after: 1))
        guard case .object(let frame)? = await next.nextRequest(within: .seconds(5)), case .object(let data)? = frame["data"] else {
            Issue.record("the connection did not connect again")
            return
        }
        #expect(data["recover"] == nil)
        await connection.close()
    }

    @Test func aReconnectRefusedForWhatItSentStartsAfresh() async throws {
        let gateway = ScriptedGateway()
        let configuration = CallGateConfiguration(url: Self.url, token: "T1", firstRetryDelay: .milliseconds(50))
        let connection = CallGateConnection(configuration: configuration, transport: gateway)
        let first = try await Self.connect(connection, gateway, result: Self.connectResult(["seq": .number(5)]))
        await first.finish(code: nil, reason: "")
        let second = try #require(await gateway.nextSocket(after: 1))
        guard case .object(let refused)? = await second.nextRequest(within: .seconds(3)), case .object(let data)? = refused["data"] else {
            Issue.record("no reconnect")
            return
        }
        #expect(data["recover"] != nil)
        let error: JSONValue = .object(["code": .string("ERR_BAD_REQUEST"), "message": .string("recover.epoch: unknown")])
        try await second.deliver(.object(["id": refused["id"] ?? .null, "error": error]))
        let third = try #require(await gateway.nextSocket(after: 2))
        guard case .object(let again)? = await third.nextRequest(within: .seconds(3)), case .object(let fresh)? = again["data"] else {
            Issue.record("no connect after the refusal")
            return
        }
        #expect(fresh["recover"] == nil)
        await connection.close()
    }

    @Test func aHandshakeThatNeverCompletesTimesOut() async throws {
        let listener = try SilentListener()
        defer { listener.stop() }
        let transport = WebSocketTransport(handshakeTimeout: .milliseconds(300))
        let started = ContinuousClock.now
        await #expect(throws: (any Error).self) {
            _ = try await transport.open(URL(string: "ws://127.0.0.1:\(listener.port)/ws")!, subprotocol: WireEndpoint.subprotocol)
        }
        #expect(ContinuousClock.now - started < .seconds(5))
    }
}
