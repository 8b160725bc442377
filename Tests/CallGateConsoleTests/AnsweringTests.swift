import CallGateKit
import CallGateProtocol
import Testing

@testable import CallGateConsole

@Suite struct AnsweringTests {
    @Test func keysMapToActions() {
        #expect(ListenKey("a") == .answer(.accept))
        #expect(ListenKey("R") == .answer(.reject))
        #expect(ListenKey("b") == .answer(.busy))
        #expect(ListenKey("h") == .hangUp)
        #expect(ListenKey("q") == .quit)
        #expect(ListenKey("x") == nil)
        #expect(ListenKey("\n") == nil)
    }

    @Test func policiesDeclineWithTheirStatus() {
        #expect(AnswerPolicy.accept.rejectStatus == nil)
        #expect(AnswerPolicy.reject.rejectStatus == .rejected)
        #expect(AnswerPolicy.busy.rejectStatus == .busy)
    }

    @Test func usualMistakesAreExplained() {
        let endpoint = "ws://127.0.0.1:1/ws"
        let down = GatewayProblem.explain(CallGateConnectionError.connectFailed("connection refused"), endpoint: endpoint)
        #expect(down.contains("cannot reach the gateway at ws://127.0.0.1:1/ws"))
        #expect(down.contains("callgate serve"))
        let token = GatewayProblem.explain(ErrorBody(code: .authError, message: "bad signature"), endpoint: endpoint)
        #expect(token.contains("refused the token"))
        #expect(token.contains("--jwt-secret"))
        let group = GatewayProblem.explain(ErrorBody(code: .groupNotFound, message: "x"), endpoint: endpoint, receiver: "team")
        #expect(group.contains("no group 'team'"))
        #expect(group.contains("PUT /v1/groups/team"))
    }
}
