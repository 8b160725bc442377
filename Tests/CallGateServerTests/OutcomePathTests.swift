import CallGateCore
import CallGateProtocol
@testable import CallGateServer
import Foundation
import LWS
import Logging
import Prometheus
import TestSupport
import Testing

/// The outcome path without a socket: what waits for a write and what goes at once, order per
/// socket, the slow-consumer cap, pushes handed to the fabric and back to the sockets, and
/// (cluster mode) the fence of an answer about a call another node took over.
@Suite struct OutcomePathTests {
    let sockets = RecordingSockets()
    let devices = RecordingDevices()
    let store = InMemoryCallLogStore()
    let path: OutcomePath

    init() {
        path = Self.path(sockets: sockets, devices: devices, store: store, fencesAnswers: false)
    }

    static func path(
        sockets: RecordingSockets, devices: RecordingDevices, store: InMemoryCallLogStore, fencesAnswers: Bool,
        maxQueuedFrames: Int = 100
    ) -> OutcomePath {
        let registry = PrometheusCollectorRegistry()
        let metrics = GatewayMetrics(registry: registry)
        let writer = CallLogWriter(store: store, logger: Logger(label: "test"), metrics: metrics.store) { _, _, _ in }
        let path = OutcomePath(
            pipeline: StorePipeline(writer: writer), sockets: sockets, metrics: metrics,
            maxQueuedFrames: maxQueuedFrames, fencesAnswers: fencesAnswers, assertServiceThread: {})
        path.delegate = devices
        devices.path = path
        return path
    }

    static func record(_ sessionId: String) -> CallLogRecord {
        CallLogRecord(
            id: 1, sessionId: sessionId, callCategory: .call, callType: .audio, callStatus: .initiated,
            initiator: User(uid: "alice", name: "Alice"), receiver: .user(User(uid: "bob", name: "Bob")),
            initiatedAt: 1_700_000_000,
            participants: [CallLogParticipantRecord(uid: "alice", name: "Alice", state: .joined)])
    }

    static let alice = ConnectionID(1)
    static let alicePhone = ConnectionID(2)
    static let bob = ConnectionID(3)

    private func outcome(pushing push: Push, to users: [String], excluding: ConnectionID? = nil) -> Outcome<PingResult> {
        Outcome(reply: .success(PingResult(serverTime: 1)), deliveries: [Delivery(push: push, users: users, excluding: excluding)])
    }

    @Test func aReplyAndItsPushesWaitForTheWriteTheyRevealThenGoInOrder() throws {
        devices.byUser = ["alice": [Self.alice, Self.alicePhone], "bob": [Self.bob]]
        let write = path.pipeline.submit([Self.record("s1")], groupWrites: [])
        let request = ReplyAddress(requestID: "r1", connection: Self.alice, sessionId: "s1")
        let sent = path.send(
            outcome(pushing: .sessionTimeout(sessionId: "s1"), to: ["alice", "bob"], excluding: Self.alice),
            answering: request, after: write)
        #expect(sent == [.onSessionTimeout])
        #expect(sockets.written.isEmpty, "nothing goes before the write is durable")
        path.release(upTo: write)
        #expect(sockets.written.map(\.id) == [Self.alice, Self.alicePhone, Self.bob])
        let reply = try #require(sockets.json(of: 0))
        #expect(reply["id"] as? String == "r1")
        #expect(sockets.json(of: 1)?["seq"] as? Int == 1 && sockets.json(of: 2)?["seq"] as? Int == 1, "each user's first push")
        #expect(devices.published == ["alice": 1, "bob": 1])
    }

    @Test func outputThatNeedsNoWriteStillWaitsBehindEarlierOutputToItsSocket() {
        devices.byUser = ["bob": [Self.bob]]
        let write = path.pipeline.submit([Self.record("s1")], groupWrites: [])
        path.deliver([Delivery(push: .sessionTimeout(sessionId: "s1"), users: ["bob"])], after: write)
        path.deliver([Delivery(push: .callEnded(sessionId: "s2"), users: ["bob"])], after: 0)
        path.refuse(frameFrom: Self.alice, requestID: "x", message: "not JSON")
        #expect(sockets.written.map(\.id) == [Self.alice], "another socket is not held back")
        path.release(upTo: write)
        #expect(sockets.written.map(\.id) == [Self.alice, Self.bob, Self.bob])
        #expect(sockets.json(of: 1)?["seq"] as? Int == 1 && sockets.json(of: 2)?["seq"] as? Int == 2)
    }

    @Test func anAnswerAboutACallWaitsForTheCallsLatestWriteEvenWhenItWritesNothing() {
        let write = path.pipeline.submit([Self.record("s1")], groupWrites: [])
        path.fail(ReplyAddress(requestID: "r2", connection: Self.bob, sessionId: "s1"), code: .notParticipant, message: "no")
        path.fail(ReplyAddress(requestID: "r3", connection: Self.alice, sessionId: "s9"), code: .notParticipant, message: "no")
        #expect(sockets.written.map(\.id) == [Self.alice], "an answer about another call goes at once")
        path.release(upTo: write)
        #expect(sockets.written.map(\.id) == [Self.alice, Self.bob])
        path.fail(ReplyAddress(requestID: "r4", connection: Self.bob, sessionId: "s1"), code: .notParticipant, message: "no")
        #expect(sockets.written.count == 3, "once durable, the call holds nothing back")
    }

    @Test func aSocketWithTooMuchOutputWaitingIsClosedAsTooSlow() {
        let path = Self.path(sockets: sockets, devices: devices, store: store, fencesAnswers: false, maxQueuedFrames: 2)
        let write = path.pipeline.submit([Self.record("s1")], groupWrites: [])
        for n in 0..<3 {
            path.emit(.frame(Self.bob, OutboundFrame(Array("{\"n\":\(n)}".utf8))), after: write)
        }
        #expect(sockets.tooSlow.map(\.id) == [Self.bob] && sockets.tooSlow.first?.held == 2)
        path.release(upTo: write)
        #expect(sockets.written.count == 2, "what was held before the cap still goes")
    }

    @Test func anAnswerAboutACallTakenOverWhileItWaitedIsReplaced() throws {
        let path = Self.path(sockets: sockets, devices: devices, store: store, fencesAnswers: true)
        devices.byUser = ["bob": [Self.bob]]
        let write = path.pipeline.submit([Self.record("s1")], groupWrites: [])
        let sent = path.send(
            outcome(pushing: .callEnded(sessionId: "s1"), to: ["bob"]), answering: ReplyAddress(requestID: "r5", connection: Self.alice, sessionId: "s1"),
            after: write)
        #expect(sent == [.onCallEnded] && devices.barriers == [write], "the push is handed to the fabric with the write it waits for")
        #expect(path.pipeline.revoke(["s1"]) == 1)
        path.release(upTo: write)
        let reply = try #require(sockets.json(of: 0))
        #expect((reply["error"] as? [String: Any])?["code"] as? String == ErrorCode.clusterUnavailable.rawValue)
        #expect(sockets.written.count == 2, "the push about the call still went: the fabric had it")
    }

    @Test func anAnswerForAnotherNodeGoesToTheDelegateAndItsNodeHearsThatItWaits() {
        let forward = ForwardTicket(node: "n2", number: 7)
        let write = path.pipeline.submit([Self.record("s1")], groupWrites: [])
        path.succeed(ReplyAddress(requestID: "r6", connection: ConnectionID(40), sessionId: "s1", forward: forward), with: PingResult(serverTime: 1))
        #expect(devices.held == [forward] && devices.performed.isEmpty)
        path.release(upTo: write)
        #expect(devices.performed == ["answer n2"] && sockets.written.isEmpty)
    }
}

/// Sockets that record what they were given. Service thread only (the test's).
final class RecordingSockets: OutputSockets {
    private(set) var written: [(id: ConnectionID, frame: OutboundFrame)] = []
    private(set) var closes: [(id: ConnectionID, code: UInt16)] = []
    private(set) var tooSlow: [(id: ConnectionID, held: Int)] = []

    func write(_ frame: OutboundFrame, to id: ConnectionID) -> Bool {
        written.append((id, frame))
        return true
    }

    func close(_ id: ConnectionID, code: UInt16, reason: String) {
        closes.append((id, code))
    }

    func closeTooSlow(_ id: ConnectionID, held: Int) {
        tooSlow.append((id, held))
    }

    /// The `index`th written frame, parsed.
    func json(of index: Int) -> [String: Any]? {
        guard index < written.count else { return nil }
        return try? JSONSerialization.jsonObject(with: Data(written[index].frame.bytes)) as? [String: Any]
    }
}

/// The service's side, recorded: a fabric of one process that numbers each user's pushes and
/// hands them back to the path for the devices in `byUser`, and what it was handed.
final class RecordingDevices: OutcomePathDelegate {
    var byUser: [String: [ConnectionID]] = [:]
    weak var path: OutcomePath?
    private(set) var published: [String: UInt64] = [:]
    private(set) var barriers: [UInt64] = []
    private(set) var performed: [String] = []
    private(set) var held: [ForwardTicket] = []

    func publish(_ delivery: Delivery, _ frame: HistoryFrame, after barrier: UInt64) -> Bool {
        barriers.append(barrier)
        var reached = 0
        for uid in delivery.users {
            let seq = published[uid, default: 0] + 1
            published[uid] = seq
            let numbered = OutboundFrame(head: frame.head, seq: seq)
            reached += path?.hand(numbered, to: byUser[uid] ?? [], excluding: delivery.excluding, after: barrier).reached ?? 0
        }
        return reached > 0
    }

    func perform(_ output: HeldOutput) {
        if case .answer(let forward, _, _) = output {
            performed.append("answer \(forward.node)")
        } else {
            performed.append("other")
        }
    }

    func answerHeld(_ forward: ForwardTicket) { held.append(forward) }
}
