import CallGateProtocol
import Testing

@Suite struct PushPositionTests {
    static func result(epoch: String = "e1", seq: UInt64, connectionId: String = "c1", recovery: Recovery? = nil) -> ConnectResult {
        ConnectResult(
            user: User(uid: "bob", name: "Bob"), connectionId: connectionId, serverTime: 0, activeCalls: [], tokenExpiresAt: 0,
            epoch: epoch, seq: seq, recovery: recovery, resumedSessions: [])
    }

    @Test func aFirstConnectStartsFromTheResultsSeqAndDropsWhatItSaw() {
        var position = PushPosition()
        #expect(position.point == nil)
        let seen1 = position.see(7)
        #expect(seen1, "before a connect every push is new")
        position.follow(Self.result(seq: 3), recovering: nil)
        #expect(position.point == RecoverParams(epoch: "e1", seq: 3, connectionId: "c1"))
        let seen2 = position.see(3)
        #expect(!seen2)
        let seen3 = position.see(4)
        #expect(seen3)
        let seen4 = position.see(4)
        #expect(!seen4)
        let seen5 = position.see(6)
        #expect(seen5)
        #expect(position.point?.seq == 6)
    }

    @Test func replayedPushesMoveToTheResultsSeqAfterTheLast() {
        var position = PushPosition()
        let recover = RecoverParams(epoch: "e1", seq: 4, connectionId: "c1")
        position.follow(Self.result(seq: 9, connectionId: "c2", recovery: Recovery(epoch: "e1", recovered: true, missed: 2)), recovering: recover)
        #expect(position.point == RecoverParams(epoch: "e1", seq: 4, connectionId: "c2"))
        let seen6 = position.see(5)
        #expect(seen6)
        #expect(position.point?.seq == 5, "a drop now must recover the missed push still to come")
        let seen7 = position.see(7)
        #expect(seen7)
        #expect(position.point?.seq == 9)
        let seen8 = position.see(8)
        #expect(!seen8)
        let seen9 = position.see(10)
        #expect(seen9)
    }

    @Test func aResultNoRecoverCouldCarryLeavesNothingToRecoverFrom() {
        var position = PushPosition()
        position.follow(Self.result(seq: 3), recovering: nil)
        position.follow(Self.result(epoch: String(repeating: "e", count: RecoverParams.maxEpochLength + 1), seq: 1), recovering: nil)
        #expect(position.point == nil)
        position.follow(Self.result(seq: RecoverParams.maxSeq + 1), recovering: nil)
        #expect(position.point == nil)
        position.follow(Self.result(seq: 3), recovering: nil)
        let seen10 = position.see(.max)
        #expect(seen10, "a seq past the bound is new")
        #expect(position.point?.seq == 3, "and not followed")
    }
}
