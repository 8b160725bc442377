import CallGateClient
import CallGateProtocol
import Testing

/// Waiting for what a client should, or should not, receive.
extension CallGateClient {
    /// The next event, failing the test when none comes within `timeout`.
    func expectEvent(within timeout: Duration = .seconds(5), sourceLocation: SourceLocation = #_sourceLocation) async throws -> ClientEvent {
        try #require(await nextEvent(timeout: timeout), "no event within \(timeout)", sourceLocation: sourceLocation)
    }

    /// The next event, which must be a push. A count of missed calls (`onMissedCallsChanged`),
    /// which any missed call causes besides the call's own pushes, is passed over unless
    /// `includingMissedCalls`.
    func expectPush(
        within timeout: Duration = .seconds(5), includingMissedCalls: Bool = false,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> Push {
        let deadline = ContinuousClock.now + timeout
        while true {
            let event = try await expectEvent(within: max(deadline - .now, .zero), sourceLocation: sourceLocation)
            guard case .push(let push) = event else {
                Issue.record("expected a push, got \(event)", sourceLocation: sourceLocation)
                throw ExpectationFailure()
            }
            if case .missedCallsChanged = push, !includingMissedCalls {
                continue
            }
            return push
        }
    }

    /// The next push, which must be a count of missed calls; returns the count.
    func expectMissedCalls(within timeout: Duration = .seconds(5), sourceLocation: SourceLocation = #_sourceLocation) async throws -> MissedCalls {
        let push = try await expectPush(within: timeout, includingMissedCalls: true, sourceLocation: sourceLocation)
        guard case .missedCallsChanged(let count) = push else {
            Issue.record("expected onMissedCallsChanged, got \(push)", sourceLocation: sourceLocation)
            throw ExpectationFailure()
        }
        return count
    }

    /// The next event, which must be the close; returns its code.
    func expectClose(within timeout: Duration = .seconds(5), sourceLocation: SourceLocation = #_sourceLocation) async throws -> UInt16? {
        let event = try await expectEvent(within: timeout, sourceLocation: sourceLocation)
        guard case .closed(let code) = event else {
            Issue.record("expected the socket to close, got \(event)", sourceLocation: sourceLocation)
            throw ExpectationFailure()
        }
        return code
    }

    /// Checks that nothing arrives for `duration` but counts of missed calls (unless
    /// `includingMissedCalls`).
    func expectSilence(
        for duration: Duration = .milliseconds(300), includingMissedCalls: Bool = false,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async {
        let deadline = ContinuousClock.now + duration
        while let event = await nextEvent(timeout: max(deadline - .now, .zero)) {
            if case .push(.missedCallsChanged) = event, !includingMissedCalls {
                continue
            }
            Issue.record("expected nothing, got \(event)", sourceLocation: sourceLocation)
            return
        }
    }
}

/// Thrown after an expectation already recorded its issue, to end the test.
struct ExpectationFailure: Error {}

/// Common call set-ups, each checking the pushes it causes.
extension CallGateClient {
    /// Drops this device's connection without a close frame, waits until it is gone, and
    /// returns where it stood in its push sequence.
    func dropped() async throws -> RecoverParams {
        let point = try #require(recoveryPoint)
        drop()
        while let event = await nextEvent(timeout: .seconds(5)) {
            if case .closed = event { break }
        }
        return point
    }

    /// Rings `receiverId` and checks that every device in `ringing` got `onIncomingCallReceived` for it.
    func ring(
        _ receiverId: String, ringing devices: [CallGateClient], timeout: Int? = nil,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> Call {
        let call = try await initiateCall(to: receiverId, timeout: timeout)
        for device in devices {
            #expect(try await device.expectPush() == .incomingCallReceived(call: call), sourceLocation: sourceLocation)
        }
        return call
    }

    /// Rings `callee`'s only device, has it accept, and checks that this caller heard the accept.
    func establishCall(with callee: CallGateClient, uid: String, sourceLocation: SourceLocation = #_sourceLocation) async throws -> Call {
        let call = try await ring(uid, ringing: [callee], sourceLocation: sourceLocation)
        let accepted = try await callee.acceptCall(call.sessionId)
        guard case .outgoingCallAccepted(accepted, _) = try await expectPush() else {
            Issue.record("the caller did not hear the accept", sourceLocation: sourceLocation)
            throw ExpectationFailure()
        }
        return accepted
    }

    /// Establishes a call with `callee`, then joins its session from this device and from the
    /// callee's, checking that this caller heard the callee join.
    func establishCallInSession(
        with callee: CallGateClient, uid: String, sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> Call {
        let call = try await establishCall(with: callee, uid: uid, sourceLocation: sourceLocation)
        _ = try await joinSession(callToken: try await generateToken(sessionId: call.sessionId).callToken)
        _ = try await callee.joinSession(callToken: try await callee.generateToken(sessionId: call.sessionId).callToken)
        #expect(try await expectPush().event == .onUserJoined, sourceLocation: sourceLocation)
        #expect(try await expectPush().event == .onUserListChanged, sourceLocation: sourceLocation)
        return call
    }
}
