import CallGateCore
import CallGateProtocol
@testable import CallGateServer
import LWS
import Logging
import Prometheus
import TestSupport
import Testing

/// The hub without a socket: the `connect` deadline, the token's close, the message rate, the
/// slow-consumer close, the counts under a client address and what reaches the service.
@Suite struct ConnectionHubTests {
    let clock = ManualClock(millis: 1_700_000_000_000)
    let timer = RecordingTimer()
    let service = RecordingService()
    let registry = PrometheusCollectorRegistry()
    let hub: ConnectionHub

    init() {
        var configuration = ServerConfiguration(jwtSecret: "s", adminKey: "k")
        configuration.authTimeout = .seconds(10)
        configuration.maxMessagesPerSecond = 3
        configuration.maxConnectionsPerAddress = 2
        configuration.trustedProxies = try! TrustedProxies(["10.0.0.0/8"])
        hub = ConnectionHub(
            configuration: configuration, clock: clock, metrics: GatewayMetrics(registry: registry),
            logger: Logger(label: "test"), assertServiceThread: {}
        ) { [timer] fire in
            timer.fire = fire
            return timer
        }
        hub.delegate = service
    }

    private var scrape: MetricsScrape {
        MetricsScrape(String(decoding: registry.emitToBuffer(), as: UTF8.self))
    }

    @Test func aSocketThatDoesNotConnectInTimeIsClosedWith4001() {
        let early = TestSocket(id: 1)
        hub.opened(early)
        #expect(timer.armedAfter == 10_000_000)
        clock.advance(millis: 4_000)
        let late = TestSocket(id: 2)
        hub.opened(late)
        #expect(hub.nextDeadline == clock.monotonicMillis() + 6_000, "the timer stays on the earliest deadline")
        clock.advance(millis: 6_000)
        hub.closeOverdue()
        #expect(early.closed?.code == CloseCode.unauthorized && early.closed?.reason == "connect timeout")
        #expect(late.closed == nil)
        #expect(timer.armedAfter == 4_000_000)
        clock.advance(millis: 4_000)
        hub.closeOverdue()
        #expect(late.closed?.code == CloseCode.unauthorized)
        #expect(scrape[#"callgate_auth_failures_total{reason="connect_timeout"}"#] == 2)
    }

    @Test func aConnectedSocketOutlivesTheConnectDeadlineUntilItsTokenExpires() {
        let socket = TestSocket(id: 1)
        let connection = hub.opened(socket)
        _ = connection.life.received(isConnect: true)
        let expiresAt = clock.nowMillis() / 1000 + 60
        hub.connected(connection, until: expiresAt)
        clock.advance(millis: 10_000)
        hub.closeOverdue()
        #expect(socket.closed == nil)
        hub.extend(connection, until: expiresAt - 30)
        clock.advance(millis: 40_000)
        hub.closeOverdue()
        #expect(socket.closed == nil, "a refresh never shortens a socket's life")
        hub.extend(connection, until: expiresAt + 60)
        clock.advance(millis: 10_000)
        hub.closeOverdue()
        #expect(socket.closed == nil)
        clock.advance(millis: 60_000)
        hub.closeOverdue()
        #expect(socket.closed?.code == CloseCode.tokenExpired)
    }

    @Test func aClosedSocketLeavesNothingBehind() {
        let socket = TestSocket(id: 7)
        let connection = hub.opened(socket)
        _ = connection.life.received(isConnect: true)
        hub.connected(connection, until: clock.nowMillis() / 1000 + 5)
        #expect(hub.closed(socket) === connection)
        #expect(hub[ConnectionID(7)] == nil)
        #expect(hub.closed(socket) == nil, "a second close finds nothing")
        clock.advance(millis: 60_000)
        hub.closeOverdue()
        #expect(socket.closed == nil, "neither the connect deadline nor the token expiry fires for a closed socket")
        #expect(!hub.write(OutboundFrame(Array("{}".utf8)), to: ConnectionID(7)))
    }

    @Test func overItsRateASocketIsClosedAfterItsOutputAndItsFramesAreDropped() {
        hub.opened(TestSocket(id: 3))
        let id = ConnectionID(3)
        #expect((0..<3).allSatisfy { _ in hub.frameArrived(on: id) })
        #expect(!hub.frameArrived(on: id))
        #expect(service.closes.map(\.code) == [CloseCode.rateLimited], "the service closes it after the output waiting for it")
        #expect(!hub.frameArrived(on: id))
        #expect(service.closes.count == 1, "one close, however many frames follow")
        clock.advance(millis: 5_000)
        #expect(!hub.frameArrived(on: id), "a socket over its rate stays closing")
        #expect(!hub.frameArrived(on: ConnectionID(99)), "a frame of no open socket is not taken")
    }

    @Test func socketsThroughATrustedProxyCountUnderTheClientsAddress() {
        for id in 1...2 {
            let socket = TestSocket(id: UInt64(id), peer: "10.1.2.3", forwardedFor: "203.0.113.9")
            hub.opened(socket)
        }
        let request = UpgradeRequest(path: "/", origin: nil, clientAddress: "10.1.2.3", forwardedFor: "203.0.113.9")
        guard case .refuse(let status, _, _) = hub.shouldUpgrade(request) else {
            Issue.record("a third socket of the same client address is refused")
            return
        }
        #expect(status == 429)
        #expect(hub[ConnectionID(1)]?.clientAddress == "203.0.113.9")
        hub.closed(TestSocket(id: 1, peer: "10.1.2.3", forwardedFor: "203.0.113.9"))
        #expect(hub.shouldUpgrade(request) == .accept)
        service.refusal = "not joined"
        guard case .refuse(503, _, _) = hub.shouldUpgrade(request) else {
            Issue.record("a service that takes no sockets refuses the upgrade with 503")
            return
        }
    }

    @Test func aFullOutboundQueueCountsWhatItDropped() {
        let socket = TestSocket(id: 4)
        hub.opened(socket)
        socket.capacity = 2
        let frame = OutboundFrame(Array("{}".utf8))
        #expect(hub.write(frame, to: ConnectionID(4)) && hub.write(frame, to: ConnectionID(4)))
        #expect(!hub.write(frame, to: ConnectionID(4)))
        #expect(socket.closed?.code == CloseCode.tooSlow)
        #expect(scrape["callgate_outbound_queue_drops_total"] == 3)
        #expect(!hub.write(frame, to: ConnectionID(4)))
        #expect(scrape["callgate_outbound_queue_drops_total"] == 3, "writes to a closing socket are not drops")
    }

    @Test func aSocketWithTooMuchHeldOutputIsClosedAtOnce() {
        let socket = TestSocket(id: 5)
        hub.opened(socket)
        _ = socket.send(OutboundFrame(Array("{}".utf8)))
        hub.closeTooSlow(ConnectionID(5), held: 10)
        #expect(socket.closed?.code == CloseCode.tooSlow && socket.closed?.flushFirst == false)
        #expect(scrape["callgate_outbound_queue_drops_total"] == 12)
        hub.closeTooSlow(ConnectionID(5), held: 10)
        #expect(scrape["callgate_outbound_queue_drops_total"] == 12, "a closing socket is not counted twice")
    }
}

/// A socket that records what it was sent and how it was closed; `capacity` frames fit its queue.
/// Used on one thread at a time (the test's, or the service thread of a `FabricFixture`).
final class TestSocket: ClientSocket, @unchecked Sendable {
    let id: UInt64
    let peerAddress: String
    let forwardedFor: String?
    var capacity = Int.max
    private(set) var sent: [OutboundFrame] = []
    private(set) var closed: (code: UInt16, reason: String, flushFirst: Bool)?
    var isClosing: Bool { closed != nil }
    var queuedFrames: Int { sent.count }
    var localCloseCode: UInt16? { closed?.code }
    var peerCloseCode: UInt16? { nil }
    var peerSentClose: Bool { false }

    init(id: UInt64, peer: String = "192.0.2.1", forwardedFor: String? = nil) {
        self.id = id
        peerAddress = peer
        self.forwardedFor = forwardedFor
    }

    func send(_ frame: OutboundFrame) -> Bool {
        guard closed == nil else { return false }
        guard sent.count < capacity else {
            close(code: CloseCode.tooSlow, reason: "slow", flushFirst: false)
            return false
        }
        sent.append(frame)
        return true
    }

    func close(code: UInt16, reason: String, flushFirst: Bool) {
        if closed == nil {
            closed = (code, reason, flushFirst)
        }
    }
}

/// A timer that records when it was asked to fire; the test fires it by calling the hub.
final class RecordingTimer: DeadlineTimer {
    var fire: (() -> Void)?
    private(set) var armedAfter: Int64?

    func schedule(afterMicroseconds microseconds: Int64) -> Bool {
        armedAfter = microseconds
        return true
    }
}

/// The service's side, recorded.
final class RecordingService: ConnectionHubDelegate {
    var refusal: String?
    private(set) var closes: [(id: ConnectionID, code: UInt16)] = []
    private(set) var messages: [[UInt8]] = []
    private(set) var gone: [ConnectionID] = []

    func refusesSockets() -> String? { refusal }
    func received(_ message: [UInt8], binary: Bool, from connection: ClientConnection) { messages.append(message) }
    func closed(_ connection: ClientConnection) { gone.append(connection.id) }
    func closeAfterOutput(_ id: ConnectionID, code: UInt16, reason: String) { closes.append((id, code)) }
}
