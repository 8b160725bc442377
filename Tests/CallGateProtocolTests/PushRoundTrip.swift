import CallGateProtocol
import Testing

/// Encodes `push` as a frame, reads it back as a client would, and expects the same push.
func expectRoundTrip(_ push: Push, sourceLocation: SourceLocation = #_sourceLocation) throws {
    let frame = try ServerFrame.decode(push.encodedFrame(seq: 42))
    guard case .push(let event, let seq, let raw) = frame else {
        Issue.record("expected a push, got \(frame)", sourceLocation: sourceLocation)
        return
    }
    #expect(event == push.event.rawValue, sourceLocation: sourceLocation)
    #expect(seq == 42, sourceLocation: sourceLocation)
    #expect(try Push(event: event, frame: raw) == push, sourceLocation: sourceLocation)
}
