@testable import CallGateCore
import CallGateProtocol
import Testing

/// The timeline: every call notes its steps with the wall clock in milliseconds and the device
/// each came from, keeps at most `CallSteps.maxSteps` of them, carries them across a restart,
/// and merges the webhook attempts about it in order of time.
@Suite struct TimelineTests {
    let f = Fixture()

    /// The steps of call `id` as its latest record carried them.
    private func steps(_ id: Int64 = 1) throws -> [CallStep] {
        try #require(f.loggedSteps[id]).steps
    }

    @Test func aCallNotesEachStepWithItsTimeAndDevice() throws {
        let alice = f.connect("alice")
        let bob = f.devices("bob", 2)
        let call = try #require(f.call("bob", from: alice).call)
        f.advance(millis: 250)
        _ = f.confirmRinging(call.sessionId, from: bob[0])
        _ = f.confirmRinging(call.sessionId, from: bob[0])
        f.advance(millis: 250)
        _ = f.accept(call.sessionId, from: bob[1])
        f.advance(seconds: 3)
        _ = f.end(call.sessionId, from: bob[1])

        let start = Fixture.start
        let noted = try steps()
        #expect(noted == [
            CallStep(at: start, step: .initiated, uid: "alice", device: "\(alice.rawValue)"),
            CallStep(at: start, step: .rung, uid: "bob", devices: 2, wakeUp: false),
            CallStep(at: start + 250, step: .ringing, uid: "bob", device: "\(bob[0].rawValue)"),
            CallStep(at: start + 500, step: .accepted, uid: "bob", device: "\(bob[1].rawValue)"),
            CallStep(at: start + 3500, step: .finished, uid: "bob", status: .ended, reason: "hungUp"),
        ])
    }

    @Test func declinesBusyCalleesMissesAndTimeoutsAreSteps() throws {
        let alice = f.connect("alice")
        let bob = f.connect("bob")
        let carol = f.connect("carol")
        let dave = f.connect("dave")
        let erin = f.connect("erin")
        f.group("team", ["alice", "bob", "carol", "dave", "frank"])
        // Dave and erin talk: with auto-busy, dave is not rung.
        let other = try #require(f.call("erin", from: dave).call)
        _ = f.accept(other.sessionId, from: erin)

        let call = try #require(f.call("team", from: alice, type: .group, timeout: 30).call)
        _ = f.reject(call.sessionId, .busy, from: carol)
        _ = f.accept(call.sessionId, from: bob)
        f.advance(seconds: 30)
        _ = f.fireDueTimers()
        let id = try #require(f.loggedChanges.values.first { $0.sessionId == call.sessionId }?.id)
        let told = try steps(id).map { "\($0.step.rawValue) \($0.uid ?? "-") \($0.devices.map(String.init) ?? "")" }
        #expect(told == [
            "initiated alice ", "busy dave ", "rung bob 1", "rung carol 1", "rung frank 0", "declined carol ",
            "accepted bob ", "missed frank ",
        ])
        #expect(try steps(id)[5].status == .busy)
    }

    @Test func aCallEveryCalleeOfWhichIsBusyEndsAfterItBegan() throws {
        let alice = f.connect("alice")
        let bob = f.connect("bob")
        let carol = f.connect("carol")
        let talk = try #require(f.call("carol", from: bob).call)
        _ = f.accept(talk.sessionId, from: carol)
        f.advance(millis: 700)
        let busy = try #require(f.call("bob", from: alice).call)
        #expect(busy.callStatus == .busy)
        let id = try #require(f.loggedChanges.values.first { $0.sessionId == busy.sessionId }?.id)
        let noted = try steps(id)
        #expect(noted.map(\.step) == [.initiated, .busy, .finished])
        #expect(noted.map(\.at) == [Fixture.start + 700, Fixture.start + 700, Fixture.start + 700], "not the second it began")
    }

    @Test func aCallKeepsItsFirstStepsAndItsLatestWithinTheCap() throws {
        let alice = f.connect("alice")
        let members = (0..<150).map { "m\($0)" }
        f.group("big", ["alice"] + members)
        let call = try #require(f.call("big", from: alice, type: .group).call)
        _ = f.end(call.sessionId, from: alice)

        let kept = try #require(f.loggedSteps[1])
        #expect(kept.steps.count == CallSteps.maxSteps)
        #expect(kept.omitted == 152 - CallSteps.maxSteps, "initiated, 150 rung, finished")
        #expect(kept.steps.first?.step == .initiated)
        #expect(kept.steps[CallSteps.keptFirst - 1].uid == "m\(CallSteps.keptFirst - 2)", "the first steps stay")
        #expect(kept.steps[CallSteps.keptFirst].uid == "m\(150 - (CallSteps.maxSteps - CallSteps.keptFirst - 1))")
        #expect(kept.steps.last?.step == .finished && kept.steps.last?.status == .cancelled)
    }

    @Test func aRestoredCallGoesOnWithTheStepsItWasSavedWith() throws {
        let alice = f.connect("alice")
        _ = f.connect("bob")
        let call = try #require(f.call("bob", from: alice, timeout: 60).call)
        let saved = try #require(f.loggedChanges[1])
        #expect(saved.steps.steps.count == 2)

        let next = Fixture()
        next.advance(millis: Fixture.millis(10) - next.nowMillis)
        next.restore(openCalls: [saved], lastCallID: 1)
        let bob = next.connect("bob")
        _ = next.accept(call.sessionId, from: bob)
        let steps = try #require(next.loggedSteps[1]).steps
        #expect(steps.map(\.step) == [.initiated, .rung, .accepted])
        #expect(steps.last?.at == Fixture.millis(10))
    }

    @Test func aMeetingNotesJoinsLeavesAndRecordings() throws {
        let alice = f.connect("alice")
        let bob = f.connect("bob")
        _ = f.joinSession(sessionId: "room:1", from: alice, audioOnly: false, idleTimeout: nil)
        _ = f.joinSession(sessionId: "room:1", from: bob, audioOnly: false, idleTimeout: nil)
        _ = f.setRecording(sessionId: "room:1", on: true, from: bob)
        _ = f.leaveSession(sessionId: "room:1", from: bob)
        _ = f.leaveSession(sessionId: "room:1", from: alice)
        let told = try steps().map { "\($0.step.rawValue) \($0.uid ?? "-") \($0.reason ?? "") \($0.rid ?? "")" }
        #expect(told == [
            "joined alice  ", "joined bob  ", "recordingStarted bob  room:1-r1", "left bob hungUp ", "left alice hungUp ",
            "recordingStopped -  room:1-r1",
        ])
    }

    @Test func webhookAttemptsAreMergedInOrderAndOnlyThoseOfTheCall() {
        let start: Int64 = 1_700_000_000
        let record = CallLogRecord(
            id: 1, sessionId: "s1", callCategory: .call, callType: .audio, callStatus: .ended,
            initiator: Fixture.user("alice"), receiver: .user(Fixture.user("bob")), initiatedAt: start, endedAt: start + 5,
            participants: [],
            steps: CallSteps([
                CallStep(at: start * 1000, step: .initiated, uid: "alice"),
                CallStep(at: start * 1000 + 4000, step: .finished, status: .ended),
            ]))
        func delivery(_ id: Int64, _ session: String, at created: Int64, _ attempts: [(Int64, WebhookDeliveryStatus, Int?)],
                      status: WebhookDeliveryStatus) -> WebhookDeliveryRecord {
            WebhookDeliveryRecord(
                id: id, endpointID: "default", messageID: "msg_\(id)", type: .callInitiated, sessionId: session,
                status: status, createdAt: created, nextAttemptAt: nil, body: "{}",
                attempts: attempts.map { WebhookAttempt(deliveryID: id, at: $0.0, durationMillis: 3, statusCode: $0.2, error: nil, status: $0.1, nextAttemptAt: nil) })
        }
        let deliveries = [
            delivery(1, "s1", at: start * 1000 + 1, [(start * 1000 + 100, .pending, 500), (start * 1000 + 5000, .delivered, 200)],
                     status: .delivered),
            delivery(2, "s1", at: start * 1000 + 3000, [], status: .pending),
            delivery(3, "s1", at: (start + 60) * 1000, [(start * 1000 + 61_000, .delivered, 200)], status: .delivered),
            delivery(4, "s2", at: start * 1000 + 2, [(start * 1000 + 200, .failed, 410)], status: .failed),
        ]
        let timeline = CallTimelineBuilder.timeline(of: record, deliveries: deliveries)
        #expect(timeline.steps.map { "\($0.at - start * 1000) \($0.step.rawValue) \($0.attempt.map(String.init) ?? "") \($0.result ?? "")" } == [
            "0 initiated  ", "100 webhook 1 failed", "3000 webhook  pending", "4000 finished  ", "5000 webhook 2 delivered",
        ], "a later meeting's delivery and another session's are not the call's")
        #expect(timeline.steps[1].httpStatus == 500 && timeline.steps[4].httpStatus == 200)

        // A call logged as ending before it began (a wall clock stepped back) or with times
        // out of any range still reads.
        var backwards = record
        backwards.endedAt = start - 5
        #expect(CallTimelineBuilder.timeline(of: backwards, deliveries: deliveries).steps.count == 2)
        backwards.initiatedAt = .max
        backwards.endedAt = .max
        #expect(CallTimelineBuilder.timeline(of: backwards, deliveries: deliveries).steps.count == 2)
    }
}

/// The steps' stored form: written fast, read back whole, and a step a later version added does
/// not keep its call from reading.
@Suite struct CallStepsJSONTests {
    @Test func stepsGoThroughTheirStoredFormUnchanged() throws {
        let steps = CallSteps([
            CallStep(at: 1, step: .rung, uid: "b\"o\\b\u{1}", devices: 0, wakeUp: true),
            CallStep(at: 2, step: .finished, uid: nil, status: .cancelled, reason: "hungUp"),
            CallStep(at: 3, step: .recordingStarted, uid: "é", device: "42", rid: "s-r1"),
        ], omitted: 7)
        #expect(CallSteps(json: steps.json) == steps)
        #expect(CallSteps().json == nil)
        // A group's rung steps of one millisecond are one element; a rung of another
        // millisecond, or with a device, is not part of the run.
        let group = CallSteps([
            CallStep(at: 5, step: .initiated, uid: "alice", device: "1"),
            CallStep(at: 5, step: .rung, uid: "bob", devices: 2, wakeUp: false),
            CallStep(at: 5, step: .rung, uid: "carol", devices: 0, wakeUp: true),
            CallStep(at: 5, step: .rung, uid: "dave", devices: 1, wakeUp: false),
            CallStep(at: 6, step: .rung, uid: "erin", devices: 1, wakeUp: false),
            CallStep(at: 6, step: .rung, uid: "frank", device: "9", devices: 1, wakeUp: false),
        ])
        let stored = try #require(group.json)
        #expect(stored.contains(#"{"at":5,"step":"rung","users":["bob","carol","dave"],"devices":[2,0,1],"wakeUp":[false,true,false]}"#))
        #expect(CallSteps(json: stored) == group)
        #expect(CallSteps(json: nil) == CallSteps())
    }

    @Test func aStepThisVersionCannotReadIsCountedAsOmitted() throws {
        let json = #"{"omitted":1,"steps":[{"at":1,"step":"initiated","uid":"a"},{"at":2,"step":"teleported"},{"at":3},"#
            + #"{"at":4,"step":"rung","users":["b","c"],"devices":[1],"wakeUp":[true,false]}]}"#
        let read = CallSteps(json: json)
        #expect(read.steps.map(\.step) == [.initiated] && read.omitted == 4, "a run whose lists differ in length is one unread element")
        #expect(CallSteps(json: "[1, 2]") == CallSteps(), "text of no known shape reads as no steps")
    }
}
