import CallGateKit
import CallGateProtocol
import Foundation
import Testing

/// CallGateKit against every client test vector of proto/vectors: a scripted gateway in place of
/// the WebSocket, the vector's steps played one by one (proto/vectors/README.md).
@Suite struct ClientVectorTests {
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("proto/vectors")

    static let vectors: [String] = {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        return names.filter { $0.hasSuffix(".json") }.sorted()
    }()

    /// How long a step may take, unless it says otherwise.
    static let stepLimit = Duration.seconds(3)

    @Test func everyVectorIsFound() {
        #expect(Self.vectors.count >= 8)
    }

    @Test(arguments: vectors)
    func clientMeetsVector(_ file: String) async throws {
        let vector = try VectorJSON.parse(Data(contentsOf: Self.folder.appendingPathComponent(file)))
        guard case .object(let members) = vector, case .object(let client)? = members["client"],
            case .string(let token)? = client["token"], case .array(let steps)? = members["steps"]
        else {
            Issue.record("\(file): not a vector")
            return
        }
        var fetchToken: (@Sendable () async throws -> String)?
        if case .string(let next)? = client["fetchToken"] {
            fetchToken = { @Sendable in next }
        }
        let gateway = ScriptedGateway()
        let configuration = CallGateConfiguration(
            url: URL(string: "ws://gateway.test/ws")!, token: token, fetchToken: fetchToken,
            requestTimeout: .seconds(5))
        let connection = CallGateConnection(configuration: configuration, transport: gateway)
        let named = Set(steps.compactMap { step -> String? in
            guard case .object(let members) = step, case .object(let app)? = members["app"], case .string(let name)? = app["event"] else { return nil }
            return name
        })
        let heard = HeardEvents(await connection.events(), ignoring: VectorJSON.watchedWhenNamed.subtracting(named))
        let connecting = Task { try? await connection.connect() }
        defer {
            Task { await connection.close() }
        }
        var player = VectorPlayer(connection: connection, gateway: gateway, heard: heard)
        for (index, step) in steps.enumerated() {
            if let failure = await player.play(step) {
                Issue.record("\(file), step \(index + 1): \(failure)")
                connecting.cancel()
                return
            }
        }
        let extra = await heard.next(within: Duration.milliseconds(200))
        if let extra, extra.name != "close" {
            Issue.record("\(file): after the last step the app heard \(extra.name) \(extra.detail)")
        }
        _ = await connecting.value
    }
}

/// What the app heard, in order, as the vectors name it.
actor HeardEvents {
    private var heard: [(name: String, detail: JSONValue)] = []

    /// Hears `events`, but none named in `ignoring`.
    init(_ events: AsyncStream<CallGateEvent>, ignoring: Set<String>) {
        Task { [weak self] in
            for await event in events {
                guard let self else { return }
                if let named = try? VectorJSON.heard(event), !ignoring.contains(named.name) {
                    await self.append(named)
                }
            }
        }
    }

    private func append(_ event: (name: String, detail: JSONValue)) {
        heard.append(event)
    }

    /// The next event heard, waiting up to `limit` for it.
    func next(within limit: Duration) async -> (name: String, detail: JSONValue)? {
        let deadline = ContinuousClock.now + limit
        while heard.isEmpty {
            guard ContinuousClock.now < deadline else { return nil }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return heard.removeFirst()
    }
}

/// Plays a vector's steps between the scripted gateway and the connection.
struct VectorPlayer {
    let connection: CallGateConnection
    let gateway: ScriptedGateway
    let heard: HeardEvents
    private var socket: ScriptedSocket?
    /// How many sockets the client had opened when the gateway last ended one (`drop`, `close`):
    /// a reconnect is a socket after those, even one opened before the `reconnect` step.
    private var socketsAtEnd: Int?

    init(connection: CallGateConnection, gateway: ScriptedGateway, heard: HeardEvents) {
        self.connection = connection
        self.gateway = gateway
        self.heard = heard
    }

    /// Plays `step`; answers why it was not met, or nil.
    mutating func play(_ step: JSONValue) async -> String? {
        guard case .object(let members) = step else { return "a step that is not an object" }
        let limit = Self.limit(members["withinMs"]) ?? ClientVectorTests.stepLimit
        if case .object(let expected)? = members["client"] {
            return await request(expected, reply: members["reply"])
        }
        if let frame = members["server"] {
            guard let socket = await current() else { return "the client opened no socket" }
            return (try? await socket.deliver(VectorJSON.resolve(frame))) == nil ? "a frame that does not encode" : nil
        }
        if case .object(let expected)? = members["app"] {
            return await hear(expected)
        }
        if members["drop"] != nil {
            await current()?.finish(code: nil, reason: "")
            socketsAtEnd = await gateway.sockets.count
            return nil
        }
        if case .object(let close)? = members["close"], case .number(let code)? = close["code"] {
            let reason = if case .string(let reason)? = close["reason"] { reason } else { "" }
            await current()?.finish(code: UInt16(code), reason: reason)
            socketsAtEnd = await gateway.sockets.count
            return nil
        }
        if case .bool(let expected)? = members["reconnect"] {
            var before = await gateway.sockets.count
            if let socketsAtEnd {
                before = socketsAtEnd
            }
            socketsAtEnd = nil
            let deadline = ContinuousClock.now + limit
            while await gateway.sockets.count == before, ContinuousClock.now < deadline {
                try? await Task.sleep(for: .milliseconds(20))
            }
            let reconnected = await gateway.sockets.count > before
            return reconnected == expected ? nil : reconnected ? "the client reconnected" : "the client did not reconnect in time"
        }
        if case .object(let call)? = members["do"] {
            return perform(call)
        }
        return "an unknown step \(step)"
    }

    private static func limit(_ value: JSONValue?) -> Duration? {
        guard case .number(let ms)? = value else { return nil }
        return .milliseconds(Int(ms))
    }

    /// The socket the client opened last, waiting for one.
    private mutating func current() async -> ScriptedSocket? {
        let deadline = ContinuousClock.now + ClientVectorTests.stepLimit
        while ContinuousClock.now < deadline {
            if let last = await gateway.sockets.last {
                socket = last
                return last
            }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return nil
    }

    private mutating func request(_ expected: [String: JSONValue], reply: JSONValue?) async -> String? {
        guard case .string(let op)? = expected["op"] else { return "a client step without op" }
        guard let socket = await current() else { return "the client opened no socket" }
        let limit = Self.limit(expected["withinMs"]) ?? ClientVectorTests.stepLimit
        guard case .object(let sent)? = await socket.nextRequest(within: limit) else { return "no request in time, expected \(op)" }
        guard sent["op"] == .string(op) else { return "expected \(op), the client sent \(sent)" }
        if let wrong = VectorJSON.mismatch(expected["data"] ?? .object([:]), sent["data"], at: "data") {
            return "\(op): \(wrong)"
        }
        guard case .object(let answer)? = reply.map(VectorJSON.resolve) else { return nil }
        var frame = answer
        frame["id"] = sent["id"]
        return (try? await socket.deliver(.object(frame))) == nil ? "a reply that does not encode" : nil
    }

    private func hear(_ expected: [String: JSONValue]) async -> String? {
        guard case .string(let name)? = expected["event"] else { return "an app step without event" }
        guard let event = await heard.next(within: ClientVectorTests.stepLimit) else { return "the app heard nothing, expected \(name)" }
        guard event.name == name else { return "the app heard \(event.name) \(event.detail), expected \(name)" }
        return VectorJSON.mismatch(expected["detail"] ?? .object([:]), event.detail, at: "detail").map { "\(name): \($0)" }
    }

    /// The app calls a method of the connection; its request follows as a `client` step.
    private func perform(_ call: [String: JSONValue]) -> String? {
        guard case .string(let method)? = call["method"], case .array(let arguments)? = call["args"] else { return "a do step without method" }
        let connection = self.connection
        switch (method, arguments.first) {
        case ("joinSession", .string(let callToken)?):
            Task { _ = try? await connection.joinSession(callToken: callToken) }
        case ("leaveSession", .string(let sessionId)?):
            Task { _ = try? await connection.leaveSession(sessionId) }
        default:
            return "a method the runner does not know: \(method)"
        }
        return nil
    }
}
