import CallGateClient
import CallGateKit
import CallGateProtocol
import Foundation
import Testing
import TestSupport

/// `GET /v3.0/calls/{sessionId}/timeline` over real HTTP, fed by real calls over real sockets,
/// on SQLite and on PostgreSQL: every step of a call in order, the webhook attempts about it
/// among them, for its participants only.
@Suite("Call timelines over real HTTP")
struct CallTimelineAPITests {
    /// The timelines of `sessionId` as `uid` reads them with the Swift client's `CallLogAPI`.
    func timelines(_ gateway: TestGateway, _ sessionId: String, as uid: String) async throws -> [CallTimeline] {
        try await api(gateway, as: uid).timeline(sessionId: sessionId).data
    }

    func api(_ gateway: TestGateway, as uid: String) async throws -> CallLogAPI {
        CallLogAPI(baseURL: URL(string: "http://127.0.0.1:\(gateway.port)")!, token: try await gateway.token(uid))
    }

    @Test(arguments: TestStore.allCases) func aCallsTimelineHasEveryStepInOrderWithItsDevices(store: TestStore) async throws {
        // Webhooks to a port nobody listens on: every attempt fails, and is in the timeline.
        let gateway = try await TestGateway(store: store) { configuration in
            configuration.webhooks.url = "http://127.0.0.1:9/hook"
            configuration.webhooks.secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
            configuration.webhooks.allowsPrivateNetworks = true
        }
        defer { gateway.shutdown() }
        let alice = try await gateway.device("alice")
        let bob = try await gateway.device("bob")
        let bobTablet = try await gateway.device("bob")
        let started = Date().timeIntervalSince1970

        let call = try await alice.ring("bob", ringing: [bob, bobTablet])
        _ = try await bob.confirmRinging(call.sessionId)
        _ = try await bob.confirmRinging(call.sessionId)
        _ = try await bobTablet.acceptCall(call.sessionId)
        var heard = try await alice.expectPush()
        while case .outgoingCallRinging = heard {
            heard = try await alice.expectPush()
        }
        _ = try await bob.expectPush()
        _ = try await alice.endCall(call.sessionId)
        _ = try await bobTablet.expectPush()

        let timeline = try #require(try await timelines(gateway, call.sessionId, as: "bob").first)
        #expect(timeline.sessionId == call.sessionId && timeline.callStatus == .ended && timeline.omittedSteps == 0)
        let steps = timeline.steps.filter { $0.step != .webhook }
        #expect(steps.map(\.step) == [.initiated, .rung, .ringing, .accepted, .finished], "confirming twice is one step")
        #expect(steps[0].uid == "alice" && steps[0].device == alice.recoveryPoint?.connectionId)
        #expect(steps[1].uid == "bob" && steps[1].devices == 2 && steps[1].wakeUp == false)
        #expect(steps[2].uid == "bob" && steps[2].device == bob.recoveryPoint?.connectionId)
        #expect(steps[3].uid == "bob" && steps[3].device == bobTablet.recoveryPoint?.connectionId)
        #expect(steps[4].status == .ended && steps[4].uid == "alice" && steps[4].reason == "hungUp")
        #expect(timeline.steps.map(\.at) == timeline.steps.map(\.at).sorted(), "in order of time")
        let first = try #require(steps.first?.at)
        #expect(abs(Double(first) / 1000 - started) < 10, "milliseconds of the wall clock")

        // The outbox's attempts to deliver `call.initiated` (and the rest) come in order.
        #expect(try await eventually(within: 30) {
            let read = try await timelines(gateway, call.sessionId, as: "alice")
            return read.first?.steps.contains { $0.step == .webhook && $0.event == "call.initiated" && $0.attempt == 1 } == true
        }, "the first attempt of call.initiated is in the timeline")
        let withWebhooks = try #require(try await timelines(gateway, call.sessionId, as: "alice").first)
        let attempt = try #require(withWebhooks.steps.first { $0.step == .webhook && $0.event == "call.initiated" })
        #expect(attempt.endpoint == "default" && attempt.result == "failed" && attempt.httpStatus == nil)
        #expect(withWebhooks.steps.map(\.at) == withWebhooks.steps.map(\.at).sorted())
    }

    @Test(arguments: TestStore.allCases) func aGroupCallsTimelineTellsEachMembersPart(store: TestStore) async throws {
        let gateway = try await TestGateway(store: store)
        defer { gateway.shutdown() }
        let alice = try await gateway.device("alice")
        let bob = try await gateway.device("bob")
        let carol = try await gateway.device("carol")
        try await gateway.putGroup("team", members: ["alice", "bob", "carol", "dave"])

        let call = try await alice.initiateCall(to: "team", receiverType: .group)
        _ = try await bob.expectPush()
        _ = try await carol.expectPush()
        _ = try await carol.rejectCall(call.sessionId, status: .busy)
        _ = try await bob.acceptCall(call.sessionId)
        _ = try await alice.expectPush()
        _ = try await alice.joinSession(callToken: try await alice.generateToken(sessionId: call.sessionId).callToken)
        _ = try await bob.joinSession(callToken: try await bob.generateToken(sessionId: call.sessionId).callToken)
        _ = try await alice.expectPush()
        _ = try await alice.expectPush()
        _ = try await bob.endCall(call.sessionId)

        let timeline = try #require(try await timelines(gateway, call.sessionId, as: "carol").first)
        let rung = timeline.steps.filter { $0.step == .rung }
        #expect(rung.map(\.uid) == ["bob", "carol", "dave"] && rung.map(\.devices) == [1, 1, 0])
        #expect(timeline.steps.filter { $0.step == .declined }.map { "\($0.uid ?? "") \($0.status?.rawValue ?? "")" } == ["carol busy"])
        #expect(timeline.steps.filter { $0.step == .joined }.map(\.uid) == ["alice", "bob"])
        // Bob's hang-up left alice alone: the call ended, and its session with it.
        #expect(timeline.steps.filter { $0.step == .left }.map { "\($0.uid ?? "") \($0.reason ?? "")" }
            == ["alice sessionClosed", "bob sessionClosed"])
        let last = try #require(timeline.steps.last)
        #expect(last.step == .finished && last.status == .ended && last.uid == "bob" && last.reason == "hungUp")
    }

    @Test(arguments: TestStore.allCases) func onlyParticipantsReadATimeline(store: TestStore) async throws {
        let gateway = try await TestGateway(store: store)
        defer { gateway.shutdown() }
        let alice = try await gateway.device("alice")
        let bob = try await gateway.device("bob")
        let call = try await alice.ring("bob", ringing: [bob])
        try await gateway.awaitLogged(call.sessionId, for: "alice")

        #expect(try await timelines(gateway, call.sessionId, as: "alice").first?.callStatus == .initiated)
        #expect(try await gateway.userGet("/v3.0/calls/\(call.sessionId)/timeline", as: "mallory").0 == 404)
        #expect(try await gateway.userGet("/v3.0/calls/\(call.sessionId)/timeline", as: nil).0 == 401)
        #expect(try await gateway.userGet("/v3.0/calls/no%20such/timeline", as: "alice").0 == 400)
        #expect(try await gateway.userGet("/v3.0/calls//timeline", as: "alice").0 == 404)
        #expect(try await gateway.userGet("/v3.0/calls/timeline", as: "alice").0 == 404, "no call has that id")
        #expect(try await gateway.userGet("/v3.0/calls/\(call.sessionId)/timeline/x", as: "alice").0 == 404)

        // The Swift client says what was refused, and sends a hostile id as one path segment.
        let mallory = try await api(gateway, as: "mallory")
        await #expect(throws: CallLogAPIError(status: 404, code: "ERR_NOT_FOUND", message: "no call with session id '\(call.sessionId)' that you were part of")) {
            try await mallory.timeline(sessionId: call.sessionId)
        }
        // Decoded by the gateway, the id holds a slash: a path with one segment too many, 404.
        let refused = await #expect(throws: CallLogAPIError.self) { try await mallory.timeline(sessionId: "../calls?x") }
        #expect(refused?.status == 404 && refused?.code == "ERR_NOT_FOUND")
        let withSlash = CallLogAPI(baseURL: URL(string: "http://127.0.0.1:\(gateway.port)/")!, token: try await gateway.token("alice"))
        #expect(try await withSlash.timeline(sessionId: call.sessionId).data.count == 1, "a base URL ending in a slash")
        let alicesLog = try await api(gateway, as: "alice")
        #expect(try await alicesLog.calls(["perPage": "1"]).data.map(\.sessionId) == [call.sessionId])
        #expect(try await alicesLog.calls(sessionId: call.sessionId).data.count == 1)
    }
}
