import CallGateCluster
import Testing

@Suite struct ClusterMessageTests {
    @Test(arguments: [
        ClusterMessage.push(origin: "node-1", excluding: 42 << 44 | 7, event: "onIncomingCallReceived", sessionId: "v1.abc", epoch: "k3x9", seq: 1, head: Array("{\"event\":\"x\"\n,\"data\":{}".utf8)),
        .push(origin: "n", excluding: nil, event: "onUserMuted", sessionId: "room:1", epoch: "e", seq: 9_007_199_254_740_991, head: []),
        .push(origin: "n", excluding: nil, event: "onMissedCallsChanged", sessionId: "", epoch: "e", seq: 3, head: Array("{}".utf8)),
        .forward(ticket: 9, from: "b:8080", connection: 123, user: Array(#"{"uid":"bob","name":"B\nob"}"#.utf8), frame: Array("{\"id\":\"1\",\n\"op\":\"acceptCall\"}".utf8)),
        .forward(ticket: .max, from: "b", connection: 0, user: Array("{}".utf8), frame: []),
        .answer(ticket: 1, frame: Array("{\"id\":\"1\",\"result\":{}}\n".utf8)),
        .held(ticket: .max),
        .departed(connection: .max),
        .present(from: "c", connection: 77, user: Array(#"{"uid":"u","name":"N"}"#.utf8)),
        .groupChanged(origin: "a", guid: "team one"),
        .webhooksChanged(origin: "a"),
        .lookFor(from: "a", uid: "bob smith"),
        .renew(from: "b", connections: [1]),
        .renew(from: "b:8080", connections: [42 << 44 | 7, .max, 0]),
        .unknown(from: "a", connections: [5, 6]),
        .live(from: "b:8080", run: "k3x9q"),
        .probe,
    ])
    func everyMessageReadsBackAsItWasWritten(_ message: ClusterMessage) {
        #expect(ClusterMessage(message.encoded) == message)
    }

    @Test(arguments: [
        "", "P a - onX\nhead", "P a 12x onX v1 e 1\n", "P a  onX v1 e 1\n", "P a - onX v1 1\n", "P a - onX v1 e -1\n", "P a - onX v1 e\n", "F 1 b 2\nno second line",
        "F x b 2\n{}\n{}", "A\n", "A -1\n", "W\n", "W x\n", "W 1\nbody", "D 1\nbody", "D\n", "H a 1\n", "H a x\n{}", "G a\n", "L a\n", "K\nbody", "Z\n", "K", "R b\n", "R b\n1 x", "R b\n-1", "R\n1", "U a\n", "U a\nx", "V a\n", "V a r\nbody", "V a r s\n",
    ])
    func malformedMessagesAreRefused(_ text: String) {
        #expect(ClusterMessage(Array(text.utf8)) == nil)
    }
}
