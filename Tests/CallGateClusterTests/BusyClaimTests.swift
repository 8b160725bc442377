import CallGateCluster
import Testing

/// A busy claim reads back as it was written, and what is no claim reads as none.
@Suite struct BusyClaimTests {
    @Test(arguments: [
        BusyClaim(node: "node-1", sessionId: "v1.abc", stage: .calling),
        BusyClaim(node: "b:8080", sessionId: "room:1", stage: .joined),
        BusyClaim.pending(on: "a"),
    ])
    func aClaimReadsBackAsItWasWritten(_ claim: BusyClaim) {
        #expect(BusyClaim(claim.bytes) == claim)
    }

    @Test func theWireFormIsWhatTheScriptsCompare() {
        #expect(String(decoding: BusyClaim.pending(on: "n1").bytes, as: UTF8.self) == "n1|-|p")
        #expect(String(decoding: BusyClaim(node: "n1", sessionId: "s", stage: .joined).bytes, as: UTF8.self) == "n1|s|j")
    }

    @Test(arguments: ["", "n1", "n1|s", "n1|s|x", "n1|s|jj", "|s|j", "n1||j", "n1|-|j", "n1|s|p", "a|b|c|d"])
    func whatIsNoClaimReadsAsNone(_ text: String) {
        #expect(BusyClaim(Array(text.utf8)) == nil)
    }
}
