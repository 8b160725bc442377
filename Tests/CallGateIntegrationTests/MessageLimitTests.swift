import CallGateClient
import CallGateProtocol
import Testing
import TestSupport

/// Per-socket limits on what flows: message rate (4029), message size (1009), outbound queue (4008).
@Suite("Message rate, size and queue limits")
struct MessageLimitTests {
    static let ping = #"{"id":"p","op":"ping","data":{}}"#

    @Test func aSocketOverItsMessageRateIsClosedWith4029() async throws {
        let gateway = try await TestGateway { $0.maxMessagesPerSecond = 5 }
        defer { gateway.shutdown() }
        let alice = try await gateway.device("alice")
        for _ in 0..<30 {
            alice.sendRaw(Self.ping)
        }
        var replies = 0
        var closeCode: UInt16?
        while let event = await alice.nextEvent(timeout: .seconds(5)) {
            if case .unmatchedReply = event { replies += 1 }
            if case .closed(let code) = event { closeCode = code }
        }
        #expect(closeCode == CloseCode.rateLimited)
        #expect(replies < 10, "a burst of 5 (less the connect) and what refilled, then nothing: \(replies)")
    }

    @Test func aSocketWithinItsRateIsNeverClosed() async throws {
        let gateway = try await TestGateway { $0.maxMessagesPerSecond = 5 }
        defer { gateway.shutdown() }
        let alice = try await gateway.device("alice")
        for _ in 0..<12 {
            #expect(try await alice.ping().serverTime > 0)
            try await Task.sleep(for: .milliseconds(250))
        }
        await alice.expectSilence()
    }

    @Test func aMessageOverTheConfiguredSizeClosesWith1009() async throws {
        let gateway = try await TestGateway { $0.maxMessageBytes = 2048 }
        defer { gateway.shutdown() }
        let alice = try await gateway.device("alice")
        alice.sendRaw(#"{"id":"fits","op":"ping","data":{"pad":""# + String(repeating: "x", count: 1500) + #""}}"#)
        guard case .unmatchedReply("fits", .success) = try await alice.expectEvent() else {
            Issue.record("a message under the cap should be answered")
            return
        }
        alice.sendRaw(#"{"id":"big","op":"ping","data":{"pad":""# + String(repeating: "x", count: 3000) + #""}}"#)
        #expect(try await alice.expectClose() == CloseCode.messageTooBig)
    }

    /// Bob's socket stops reading while Alice's calls push to it: once the kernel buffers are full
    /// his queue passes its cap, the gateway drops what is queued and closes with 4008; when he
    /// reads again he finds the close after the pushes that got through.
    @Test func aClientThatStopsReadingIsClosedWith4008() async throws {
        let gateway = try await TestGateway {
            $0.maxQueuedFrames = 8
            $0.maxMessagesPerSecond = 0
            $0.core.maxCallsPerMinute = 10_000
        }
        defer { gateway.shutdown() }
        let bob = try await RawWebSocket.open(port: gateway.port, receiveBufferBytes: 4096)
        #expect(try await bob.connect(token: try await gateway.token("bob")).contains(#""result""#))
        let alice = try await gateway.device("alice")
        let padding: [String: JSONValue] = ["note": .string(String(repeating: "n", count: 4000))]
        let calls = 600
        for _ in 0..<calls {
            let call = try await alice.initiateCall(to: "bob", metadata: padding)
            _ = try await alice.rejectCall(call.sessionId, status: .cancelled)
        }
        var pushes = 0
        var closeCode: UInt16?
        reading: while true {
            switch await bob.read(within: .seconds(5)) {
            case .frame(let frame) where frame.opcode == 0x1:
                pushes += 1
            case .frame(let frame) where frame.opcode == 0x8:
                closeCode = frame.closeCode
                break reading
            case .frame:
                continue
            case .endOfStream, .timedOut:
                break reading
            }
        }
        #expect(closeCode == CloseCode.tooSlow)
        #expect(pushes < calls * 2, "pushes past the cap were dropped, not delivered late")
    }
}
