import CallGateKit
import CallGateProtocol

/// The logic of `callgate call`: rings a user or a group from a connected device, prints what
/// happens, and hangs up on request. The device reconnects and recovers what it missed when
/// its socket drops. An actor: pushes and the Ctrl-C handler arrive from different tasks.
public actor Caller {
    private let client: CallGateConnection
    private let events: AsyncStream<CallGateEvent>
    private let output: ConsoleOutput
    private let endpoint: String
    private var call: Call?
    private var answered = false
    private var hangingUp = false

    /// Calls from `client`, which must already be connected; `events` are its events, taken
    /// before it connected.
    public init(client: CallGateConnection, events: AsyncStream<CallGateEvent>, endpoint: String, output: @escaping ConsoleOutput) {
        self.client = client
        self.events = events
        self.endpoint = endpoint
        self.output = output
    }

    /// Starts ringing; throws the gateway's refusal (unknown group, already in a call, ...).
    public func ring(_ receiverId: String, receiverType: ReceiverType, callType: CallType) async throws -> Call {
        let call = try await client.initiateCall(to: receiverId, receiverType: receiverType, callType: callType)
        self.call = call
        if call.callStatus == .initiated {
            output("ringing \(PushFormatter.receiver(call)) (\(call.callType.rawValue) call, session \(call.sessionId)); Ctrl-C hangs up")
        }
        return call
    }

    /// Prints what happens to the call until it is over, and says how it ended.
    public func follow() async -> CallEnding {
        for await event in events {
            switch event {
            case .push(let push):
                output(PushFormatter.describe(push))
                guard push.sessionId == call?.sessionId else { continue }
                switch push {
                case .outgoingCallAccepted:
                    if !answered { output("in the call; Ctrl-C hangs up") }
                    answered = true
                case .outgoingCallRejected:
                    return await finished(.endedByPeer)
                case .callEndedMessageReceived(let ended, _, _) where ended.callStatus.isTerminal:
                    return await finished(.endedByPeer)
                default:
                    break
                }
            case .closed(let code, _, let willReconnect):
                if !willReconnect {
                    return hangingUp ? .hungUp : .connectionLost
                }
                output("the connection to the gateway was lost" + (code.map { " (code \($0))" } ?? "") + "; reconnecting")
            case .recovered(let report):
                output(PushFormatter.describe(report))
            case .refreshFailed(let reason):
                output("could not refresh the token: \(reason)")
            case .open, .reconnecting:
                continue
            }
        }
        return hangingUp ? .hungUp : .connectionLost
    }

    /// Ends the call (or cancels it while it rings), then starts closing the socket: `follow`
    /// sees the close and returns.
    public func hangUp() async {
        guard !hangingUp else { return }
        hangingUp = true
        if let call {
            do {
                if answered {
                    _ = try await client.endCall(call.sessionId)
                    output("you hung up")
                } else {
                    _ = try await client.rejectCall(call.sessionId, status: .cancelled)
                    output("you cancelled the call")
                }
            } catch {
                output("the call was already over: \(GatewayProblem.explain(error, endpoint: endpoint))")
            }
        }
        await client.close()
    }

    private func finished(_ ending: CallEnding) async -> CallEnding {
        hangingUp = true
        await client.close()
        return ending
    }
}

/// How a `callgate call` ended.
public enum CallEnding: Sendable, Equatable {
    /// The other side declined, was busy, did not answer, or hung up.
    case endedByPeer
    /// We hung up or cancelled (Ctrl-C).
    case hungUp
    /// The gateway closed the socket.
    case connectionLost
}

/// Where `listen` and `call` write their lines: standard output in the CLI, a buffer in tests.
public typealias ConsoleOutput = @Sendable (String) -> Void
