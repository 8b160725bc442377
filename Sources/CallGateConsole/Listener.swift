import CallGateKit
import CallGateProtocol

/// The logic of `callgate listen`: prints every push of a connected device, which reconnects
/// and recovers what it missed when its socket drops (and confirms each ring to its caller),
/// and answers incoming calls by policy (`--auto`) or by key. An actor: pushes and key presses
/// arrive from different tasks.
public actor Listener {
    private let client: CallGateConnection
    private let events: AsyncStream<CallGateEvent>
    private let output: ConsoleOutput
    private let policy: AnswerPolicy?
    private let endpoint: String
    /// Calls ringing this device, oldest first.
    private var ringing: [Call] = []
    /// The call this device accepted and that is still going.
    private var current: Call?
    private var stopping = false

    /// Listens on `client`, which must already be connected; `events` are its events, taken
    /// before it connected.
    public init(
        client: CallGateConnection, events: AsyncStream<CallGateEvent>, endpoint: String, policy: AnswerPolicy?,
        output: @escaping ConsoleOutput
    ) {
        self.client = client
        self.events = events
        self.endpoint = endpoint
        self.policy = policy
        self.output = output
    }

    /// Prints and reacts to events until the device stops (`stop`, `q`, or a close that a
    /// reconnect cannot help).
    public func run() async {
        for await event in events {
            switch event {
            case .push(let push):
                output(PushFormatter.describe(push))
                await react(to: push)
            case .closed(let code, _, let willReconnect):
                if !willReconnect {
                    if !stopping {
                        output("the gateway closed the connection" + (code.map { " (code \($0))" } ?? ""))
                    }
                    return
                }
                output("the connection to the gateway was lost" + (code.map { " (code \($0))" } ?? "") + "; reconnecting")
            case .open(let result):
                if result.recovery?.recovered == false {
                    reconcile(with: result)
                }
            case .recovered(let report):
                output(PushFormatter.describe(report))
            case .refreshFailed(let reason):
                output("could not refresh the token: \(reason)")
            case .reconnecting:
                continue
            }
        }
    }

    /// Acts on a key press.
    public func press(_ key: ListenKey) async {
        switch key {
        case .answer(let answer):
            guard let call = ringing.last else {
                output("nothing is ringing")
                return
            }
            await self.answer(call, with: answer)
        case .hangUp:
            guard let call = current else {
                output("no call to hang up")
                return
            }
            current = nil
            do {
                _ = try await client.endCall(call.sessionId)
                output("you hung up")
            } catch {
                output("could not hang up: \(GatewayProblem.explain(error, endpoint: endpoint))")
            }
        case .quit:
            await stop()
        }
    }

    /// Hangs up a call in progress, then starts closing the socket: `run` sees the close and returns.
    public func stop() async {
        guard !stopping else { return }
        stopping = true
        if let call = current {
            current = nil
            _ = try? await client.endCall(call.sessionId)
            output("you hung up")
        }
        await client.close()
    }

    /// After a reconnect that could not recover, the calls as the gateway has them now.
    private func reconcile(with result: ConnectResult) {
        let activeCalls = result.activeCalls
        ringing = activeCalls.filter { $0.callStatus == .initiated && $0.initiator.uid != result.user.uid }
        if let call = current, !activeCalls.contains(where: { $0.sessionId == call.sessionId }) {
            current = nil
            output("the call with \(PushFormatter.name(call.initiator)) ended while the connection was down")
        }
    }

    private func react(to push: Push) async {
        switch push {
        case .incomingCallReceived(let call, _):
            ringing.append(call)
            if let policy {
                await answer(call, with: policy)
            } else {
                output("  " + ListenKey.help)
            }
        case .incomingCallCanceled(let call, _):
            ringing.removeAll { $0.sessionId == call.sessionId }
        case .callEndedMessageReceived(let call, _, _):
            if current?.sessionId == call.sessionId, call.callStatus == .ended || call.receiverType == .user {
                current = nil
            }
        default:
            break
        }
    }

    private func answer(_ call: Call, with answer: AnswerPolicy) async {
        ringing.removeAll { $0.sessionId == call.sessionId }
        do {
            if let status = answer.rejectStatus {
                _ = try await client.rejectCall(call.sessionId, status: status)
                output("you declined the call from \(PushFormatter.name(call.initiator)) (\(status.rawValue))")
            } else {
                current = try await client.acceptCall(call.sessionId)
                output("you accepted the call from \(PushFormatter.name(call.initiator))" + (policy == nil ? "; press h to hang up" : ""))
            }
        } catch {
            output("could not answer: \(GatewayProblem.explain(error, endpoint: endpoint))")
        }
    }
}

/// How `callgate listen --auto` answers every incoming call.
public enum AnswerPolicy: String, CaseIterable, Sendable {
    case accept
    case reject
    case busy

    /// The `rejectCall` status of a decline; nil for accept.
    public var rejectStatus: RejectStatus? {
        switch self {
        case .accept: nil
        case .reject: .rejected
        case .busy: .busy
        }
    }
}

/// A key pressed in `callgate listen`, and what it does.
public enum ListenKey: Sendable, Equatable {
    /// Answer the call ringing most recently with this policy (a, r, b).
    case answer(AnswerPolicy)
    /// Hang up the call in progress (h).
    case hangUp
    /// Leave (q).
    case quit

    /// The key for a typed character, case-insensitive; nil for any other character.
    public init?(_ character: Character) {
        switch character.lowercased() {
        case "a": self = .answer(.accept)
        case "r": self = .answer(.reject)
        case "b": self = .answer(.busy)
        case "h": self = .hangUp
        case "q": self = .quit
        default: return nil
        }
    }

    /// The help line listen prints when a call rings.
    public static let help = "press a to accept, r to reject, b for busy"
}
