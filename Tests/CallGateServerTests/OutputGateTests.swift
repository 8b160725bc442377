import CallGateCore
@testable import CallGateServer
import Testing

/// Output that reveals durable state waits for its write; nothing overtakes earlier output to
/// the same socket; everything else goes at once.
@Suite struct OutputGateTests {
    let alice = ConnectionID(1)
    let bob = ConnectionID(2)

    @Test func outputThatNeedsNoWriteGoesAtOnce() {
        var gate = OutputGate<ConnectionID, String, String>()
        #expect(gate.pass("ring", to: alice, after: 0) == .go("ring"))
        #expect(gate.pass("answer", to: nil, after: 0) == .go("answer"))
    }

    @Test func outputWaitsForItsWrite() {
        var gate = OutputGate<ConnectionID, String, String>()
        #expect(gate.pass("ended", to: alice, after: 1) == .held)
        #expect(gate.heldCount == 1)
        #expect(gate.committed(upTo: 1) == ["ended"])
        #expect(gate.pass("later", to: alice, after: 1) == .go("later"))
    }

    @Test func laterOutputToTheSameSocketNeverOvertakes() {
        var gate = OutputGate<ConnectionID, String, String>()
        #expect(gate.pass("ended", to: alice, after: 1) == .held)
        #expect(gate.pass("ring", to: alice, after: 0) == .held)
        #expect(gate.pass("ring", to: bob, after: 0) == .go("ring"))
        #expect(gate.committed(upTo: 1) == ["ended", "ring"])
        #expect(gate.pass("next", to: alice, after: 0) == .go("next"))
    }

    @Test func outputsLeaveInProductionOrderAsWritesCommit() {
        var gate = OutputGate<ConnectionID, String, String>()
        #expect(gate.pass("a1", to: alice, after: 1) == .held)
        #expect(gate.pass("b2", to: bob, after: 2) == .held)
        #expect(gate.pass("a0", to: alice, after: 0) == .held)
        #expect(gate.committed(upTo: 1) == ["a1"])
        #expect(gate.committed(upTo: 2) == ["b2", "a0"])
        #expect(gate.heldCount == 0)
        #expect(gate.committed(upTo: 1) == [])
    }

    @Test func aRevokedCallsPushesAreDroppedAndItsRepliesReplacedInTheirTurn() {
        var gate = OutputGate<ConnectionID, String, String>()
        #expect(gate.pass("ring c1", to: bob, after: 1, fence: OutputFence(subject: "c1", instead: nil)) == .held)
        #expect(gate.pass("ok c1", to: alice, after: 1, fence: OutputFence(subject: "c1", instead: "retry c1")) == .held)
        #expect(gate.pass("ring c2", to: bob, after: 1, fence: OutputFence(subject: "c2", instead: nil)) == .held)
        #expect(gate.pass("later", to: alice, after: 0) == .held)
        #expect(gate.revoke(["c1"]) == 2)
        #expect(gate.heldCount == 3)
        #expect(gate.revoke(["c3"]) == 0)
        #expect(gate.committed(upTo: 1) == ["retry c1", "ring c2", "later"])
        #expect(gate.pass("next", to: bob, after: 0) == .go("next"), "the dropped push left bob's lane")
    }

    @Test func aLaneAtItsCapRefusesWithoutKeeping() {
        var gate = OutputGate<ConnectionID, String, String>()
        #expect(gate.pass("a1", to: alice, after: 1, cap: 2) == .held)
        #expect(gate.pass("a2", to: alice, after: 0, cap: 2) == .held)
        #expect(gate.pass("a3", to: alice, after: 0, cap: 2) == .full(waiting: 2))
        #expect(gate.pass("b", to: bob, after: 0, cap: 2) == .go("b"))
        #expect(gate.heldCount == 2)
        #expect(gate.committed(upTo: 1) == ["a1", "a2"])
        #expect(gate.pass("a4", to: alice, after: 0, cap: 2) == .go("a4"))
    }
}
