import CallGateClient
import CallGateProtocol
import CallGateServer
import Testing

@Suite("Malformed frames, limits and authentication")
struct ProtocolErrorTests {
    @Test func malformedFramesGetBadRequestAndTheSocketStaysOpen() async throws {
        let gateway = try await TestGateway()
        defer { gateway.shutdown() }
        let alice = try await gateway.device("alice")

        alice.sendRaw("this is not json")
        guard case .unmatchedReply(nil, .failure(let notJSON)) = try await alice.expectEvent() else {
            Issue.record("expected an error reply without id")
            return
        }
        #expect(notJSON.code == .badRequest)

        alice.sendRaw(#"{"id":"x1","op":"teleport","data":{}}"#)
        guard case .unmatchedReply("x1", .failure(let unknownOp)) = try await alice.expectEvent() else {
            Issue.record("expected an error reply for x1")
            return
        }
        #expect(unknownOp.code == .badRequest)
        #expect(unknownOp.message.contains("teleport"))

        alice.sendRaw(#"{"id":"x2","op":"initiateCall","data":{"receiverId":"bob","receiverType":"user","callType":"hologram"}}"#)
        guard case .unmatchedReply("x2", .failure(let badEnum)) = try await alice.expectEvent() else {
            Issue.record("expected an error reply for x2")
            return
        }
        #expect(badEnum.code == .badRequest)
        #expect(badEnum.message.contains("callType"))

        alice.sendRaw(#"{"id":"x3","op":"acceptCall","data":{"sessionId":42}}"#)
        guard case .unmatchedReply("x3", .failure(let wrongType)) = try await alice.expectEvent() else {
            Issue.record("expected an error reply for x3")
            return
        }
        #expect(wrongType.code == .badRequest)

        #expect(try await alice.ping().serverTime > 0)
    }

    @Test func anOverSizeFrameClosesTheSocketWith1009() async throws {
        let gateway = try await TestGateway()
        defer { gateway.shutdown() }
        let alice = try await gateway.device("alice")
        alice.sendRaw(#"{"id":"big","op":"ping","data":{"pad":""# + String(repeating: "x", count: 70_000) + #""}}"#)
        #expect(try await alice.expectClose() == CloseCode.messageTooBig)
    }

    @Test func opsBeforeConnectAreRefused() async throws {
        let gateway = try await TestGateway()
        defer { gateway.shutdown() }
        let socket = try await gateway.socket()
        await expectError(.userNotLoggedIn) { try await socket.initiateCall(to: "bob") }
        await expectError(.userNotLoggedIn) { try await socket.ping() }
    }

    @Test(arguments: ["not-a-jwt", "wrong-secret", "expired"])
    func aBadTokenGetsAuthErrorAndClose4001(_ kind: String) async throws {
        let gateway = try await TestGateway()
        defer { gateway.shutdown() }
        let token: String
        switch kind {
        case "wrong-secret":
            token = try await TokenService(secret: "another-secret").mint(user: User(uid: "eve", name: "Eve"), ttl: 60).token
        case "expired":
            token = try await gateway.tokens.mint(user: User(uid: "eve", name: "Eve"), ttl: 60, now: .now.addingTimeInterval(-3600)).token
        default:
            token = kind
        }
        let socket = try await gateway.socket()
        await expectError(.authError) { try await socket.connect(token: token) }
        #expect(try await socket.expectClose() == CloseCode.unauthorized)
    }

    @Test func aSocketThatNeverConnectsIsClosedWith4001() async throws {
        let gateway = try await TestGateway { $0.authTimeout = .milliseconds(500) }
        defer { gateway.shutdown() }
        let socket = try await gateway.socket()
        #expect(try await socket.expectClose(within: .seconds(5)) == CloseCode.unauthorized)
        let connected = try await gateway.device("alice")
        await connected.expectSilence(for: .seconds(1))
    }

    @Test func stoppingTheGatewayClosesEverySocketWith1012() async throws {
        let gateway = try await TestGateway()
        defer { gateway.loop.stop() }
        let alice = try await gateway.device("alice")
        let stranger = try await gateway.socket()
        gateway.server.stop()
        #expect(try await alice.expectClose() == CloseCode.serviceRestart)
        #expect(try await stranger.expectClose() == CloseCode.serviceRestart)
    }

    @Test func aClientThatCannotReachTheGatewayGetsAClearError() async throws {
        let gateway = try await TestGateway()
        let port = gateway.port
        gateway.server.stop()
        defer { gateway.loop.stop() }
        await #expect(throws: CallGateClientError.self) {
            _ = try await CallGateClient.open(host: "127.0.0.1", port: port, loop: gateway.loop)
        }
    }
}
