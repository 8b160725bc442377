import CallGateCore
import CallGateProtocol
import Foundation
import LWS

/// Call-session ops: call tokens are signed and checked off the service thread (jwt-kit is
/// async) and the result comes back through the mailbox; everything else goes straight to the Core.
extension GatewayService {
    /// Issues a call token once the Core agreed this user may have one for this session.
    func generateToken(_ params: SessionParams, requestID: String, for session: ClientSession, on connection: WebSocketConnection) {
        let user: User
        switch core.authorizeCallToken(sessionId: params.sessionId, from: session.connectionID) {
        case .failure(let error):
            fail(connection, requestID: requestID, code: error.code, message: error.message)
            return
        case .success(let authorized):
            user = authorized
        }
        let tokens = tokens
        let context = context
        let id = session.connectionID
        Task {
            let reply: Data
            do {
                let minted = try await tokens.mintCallToken(uid: user.uid, sessionId: params.sessionId)
                let result = GenerateTokenResult(callToken: minted.token, sessionId: params.sessionId, expiresAt: minted.expiresAt)
                reply = ReplyFrame.success(id: requestID, result: result)
            } catch {
                reply = ReplyFrame.failure(id: requestID, code: .badRequest, message: "the gateway could not sign a call token")
            }
            context.post { [self] in
                beginOutput(concerning: params.sessionId)
                emit(.frame(id, OutboundFrame(reply)))
            }
        }
    }

    /// Checks the call token, then joins this socket to the session it names.
    func joinSession(_ params: JoinSessionParams, requestID: String, for session: ClientSession) {
        let tokens = tokens
        let id = session.connectionID
        offServiceThread({ await tokens.verifyCallToken(params.callToken) }) { [self] grant in
            finishJoin(grant, params: params, requestID: requestID, for: id)
        }
    }

    /// Service thread: the token's user must be this socket's user.
    private func finishJoin(_ grant: Result<CallGrant, TokenError>, params: JoinSessionParams, requestID: String, for id: ConnectionID) {
        guard let connection = sockets[id], let user = (connection.attachment as? ClientSession)?.user else { return }
        beginOutput(concerning: try? grant.get().sessionId)
        switch grant {
        case .failure(let error):
            fail(connection, requestID: requestID, code: .authError, message: error.message)
        case .success(let grant) where grant.uid != user.uid:
            fail(connection, requestID: requestID, code: .authError, message: "this call token was issued to another user")
        case .success(let grant):
            let outcome = core.joinSession(
                sessionId: grant.sessionId, from: id, audioOnly: params.audioOnly ?? false, idleTimeout: params.idleTimeout)
            send(outcome, replyTo: requestID, on: connection)
        }
    }

    /// Sends a session op's outcome: the reply `{session}` first, then every push. The Core's
    /// changes go to the writer first, as for call ops: a `leaveSession` that ended a call is
    /// answered only once the call's terminal status is durable.
    func send(_ outcome: SessionOutcome, replyTo requestID: String, on connection: WebSocketConnection) {
        persistChanges()
        reply(outcome.reply.map { SessionResult(session: $0) }, to: requestID, on: connection)
        deliver(outcome.deliveries)
    }
}
