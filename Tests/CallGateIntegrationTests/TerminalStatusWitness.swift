import CallGateProtocol
import Synchronization

/// Every terminal call status some client received, by session id: what must survive a crash.
final class TerminalStatusWitness: Sendable {
    private let seen = Mutex<[String: CallStatus]>([:])
    private let conflicts = Mutex<[String]>([])

    /// Notes `call` if its status is terminal.
    func saw(_ call: Call) {
        guard call.callStatus.isTerminal else { return }
        seen.withLock { seen in
            if let earlier = seen.updateValue(call.callStatus, forKey: call.sessionId), earlier != call.callStatus {
                conflicts.withLock { $0.append("\(call.sessionId): \(earlier) then \(call.callStatus)") }
            }
        }
    }

    /// Notes the call a push carries, if any.
    func saw(_ push: Push) {
        switch push {
        case .outgoingCallRejected(let call, _), .incomingCallCanceled(let call, _),
             .callEndedMessageReceived(let call, _, _), .outgoingCallAccepted(let call, _),
             .incomingCallReceived(let call, _):
            saw(call)
        default:
            break
        }
    }

    /// The statuses seen, by session id.
    var statuses: [String: CallStatus] { seen.withLock { $0 } }
    /// Session ids that were seen with two different terminal statuses.
    var contradictions: [String] { conflicts.withLock { $0 } }
}
