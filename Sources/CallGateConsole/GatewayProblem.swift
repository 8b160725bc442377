import CallGateKit
import CallGateProtocol

/// Plain-language explanations of the usual mistakes with `listen` and `call`: server not
/// running, bad token, unknown group.
public enum GatewayProblem {
    /// One line saying what went wrong and what to do about it.
    ///
    /// `endpoint` is the ws:// address tried; `receiver` is the group a call was aimed at, if any.
    public static func explain(_ error: any Error, endpoint: String, receiver: String? = nil) -> String {
        switch error {
        case CallGateConnectionError.connectFailed(let detail):
            return "cannot reach the gateway at \(endpoint) (\(detail)): is `callgate serve` running there? Check --host and --port."
        case CallGateConnectionError.disconnected(let code):
            return "the gateway at \(endpoint) closed the connection" + (code.map { " (code \($0))" } ?? "")
        case let body as ErrorBody:
            return explain(body, receiver: receiver)
        default:
            return String(describing: error)
        }
    }

    static func explain(_ body: ErrorBody, receiver: String?) -> String {
        switch body.code {
        case .authError:
            return "the gateway refused the token (\(body.code.rawValue): \(body.message)): check that --jwt-secret is the secret `callgate serve` runs with, or that --token is current"
        case .groupNotFound:
            let name = receiver.map { "'\($0)'" } ?? "that group"
            return "no group \(name), or you are not a member of it (\(body.code.rawValue)): create it with PUT /v1/groups/\(receiver ?? "<guid>") on the admin API"
        case .callInProgress:
            return "you are already in a call or ringing someone (\(body.code.rawValue))"
        case .callingSelf:
            return "you cannot call yourself (\(body.code.rawValue))"
        default:
            return "the gateway answered \(body.code.rawValue): \(body.message)"
        }
    }
}
