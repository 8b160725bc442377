@testable import CallGateServer
import Testing

/// Output waits for the writes submitted before it and leaves in production order.
@Suite struct OutputGateTests {
    @Test func outputPassesWhileNothingIsPending() {
        var gate = OutputGate<Int>()
        #expect(gate.pass(1) == 1)
        gate.submitted(1)
        _ = gate.committed(upTo: 1)
        #expect(gate.pass(2) == 2)
    }

    @Test func outputAfterASubmissionWaitsForItsCommit() {
        var gate = OutputGate<String>()
        gate.submitted(1)
        #expect(gate.pass("reply") == nil)
        #expect(gate.pass("push") == nil)
        #expect(gate.heldCount == 2)
        #expect(gate.committed(upTo: 1) == ["reply", "push"])
        #expect(gate.isOpen)
    }

    @Test func laterOutputNeverOvertakesEarlierOutput() {
        var gate = OutputGate<String>()
        gate.submitted(1)
        #expect(gate.pass("a") == nil)
        gate.submitted(2)
        #expect(gate.pass("b") == nil)
        #expect(gate.committed(upTo: 1) == ["a"])
        // Nothing new is pending for "c", but "b" still waits: "c" waits behind it.
        #expect(gate.pass("c") == nil)
        #expect(gate.committed(upTo: 2) == ["b", "c"])
        #expect(gate.pass("d") == "d")
    }

    @Test func aCommitCoveringSeveralBatchesReleasesAllOfThem() {
        var gate = OutputGate<Int>()
        for sequence in 1...3 {
            gate.submitted(UInt64(sequence))
            #expect(gate.pass(sequence) == nil)
        }
        #expect(gate.committed(upTo: 3) == [1, 2, 3])
        #expect(gate.committed(upTo: 2) == [])
        #expect(gate.isOpen)
    }
}
