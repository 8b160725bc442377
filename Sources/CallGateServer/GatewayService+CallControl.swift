import CallGateCore
import CallGateProtocol
import Foundation
import LWS

/// The admin API's call control: the app's backend rings on a user's behalf, lists the live
/// calls, ends a call, mutes or removes a participant, and asks where a user stands. An op on
/// one call runs on the node that owns it (`Fabric.route(_:for:local:)`); a ring runs here and
/// makes the call this node's. Answers wait, as replies do, for the writes they reveal.
/// Service thread only.
extension GatewayService {
    func handleCallControl(_ request: CallControlRequest, for exchange: ServiceThreadBox<HTTPExchange>) {
        switch request {
        case .ring(let initiator, let profile, let params):
            if let refused = refusal(startingCall: true) {
                output.emit(.http(exchange, refused))
                return
            }
            ring(params, onBehalfOf: initiator, shownAs: profile, for: exchange)
        case .list(let status, let page, let perPage):
            listLiveCalls(status: status, page: page, perPage: perPage, for: exchange)
        case .command(let command):
            if let refused = refusal(startingCall: false) {
                output.emit(.http(exchange, refused))
                return
            }
            fabric.route(command, for: exchange) { [self] in
                run(command, answering: .http(exchange))
            }
        case .presence(let uid):
            fabric.presence(of: uid) { [self] presence in
                output.emit(.http(exchange, presence.map { .json(200, $0) } ?? .error(
                    503, .clusterUnavailable, "where \(uid) stands could not be read from Redis; try again shortly")))
            }
        }
    }

    /// Runs `command` on a call this node owns, and answers `destination` once its changes are
    /// durable.
    func run(_ command: CallCommand, answering destination: CommandDestination) {
        switch command {
        case .end(let sessionId, let reason):
            carry(core.endByServer(sessionId: sessionId, reason: reason), about: sessionId, to: destination) { .json(200, $0) }
        case .mute(let sessionId, let uid):
            carry(core.muteByServer(sessionId: sessionId, uid: uid), about: sessionId, to: destination) {
                .json(200, SessionResult(session: $0))
            }
        case .remove(let sessionId, let uid):
            carry(core.removeByServer(sessionId: sessionId, uid: uid), about: sessionId, to: destination) {
                .json(200, SessionResult(session: $0))
            }
        case .holdAway(let sessionId, let uid):
            carry(core.holdAway(uid, in: sessionId), about: sessionId, to: destination) { .json(200, $0) }
        }
    }

    /// Rings on behalf of `initiator` once the fabric claimed them (as it claims a caller; what
    /// other nodes know of the initiator is read with the callees, for their profile), and
    /// answers 201 with the call.
    private func ring(
        _ params: InitiateCallParams, onBehalfOf initiator: String, shownAs profile: User?,
        for exchange: ServiceThreadBox<HTTPExchange>
    ) {
        var read = fabric.callees(of: params, from: initiator, anyGroup: true)
        if profile == nil {
            read.append(initiator)
        }
        fabric.startingServerCall(by: initiator, ringing: read) { [self] elsewhere in
            core.ringOnBehalf(of: initiator, profile: profile, params, elsewhere: elsewhere)
        } then: { [self] outcome in
            let sessionId = (try? outcome.reply.get())?.sessionId ?? ""
            carry(outcome, about: sessionId, to: .http(exchange)) { .json(201, $0) }
        } refused: { [self] response in
            output.emit(.http(exchange, response))
        }
    }

    /// Persists `outcome`, hands its pushes out, and answers `destination` with `respond`'s
    /// response (or the error's) once what it reveals is durable.
    private func carry<Reply>(
        _ outcome: Outcome<Reply>, about sessionId: String, to destination: CommandDestination,
        _ respond: (Reply) -> HTTPResponse
    ) {
        let barrier = persist(outcome)
        let response = switch outcome.reply {
        case .success(let reply): respond(reply)
        case .failure(let error): Self.response(for: error)
        }
        output.answer(response, to: destination, about: sessionId, after: barrier)
        output.deliver(outcome.deliveries, after: barrier)
    }

    /// Why an op on calls is refused now, nil when it may run: this node is cut off from the
    /// cluster, or (for a new call) the store refuses every write.
    private func refusal(startingCall: Bool) -> HTTPResponse? {
        if !fabric.mayRunCalls() {
            return .error(
                503, .clusterUnavailable,
                "this node is cut off from the cluster: \(fabric.unreadiness() ?? "it is checking its calls"); try again shortly")
        }
        if startingCall, let failure = storeFailure() {
            return .error(503, .storeUnavailable, failure)
        }
        return nil
    }

    /// One page of the calls that are live in the store, oldest first: every node's in cluster
    /// mode, read on `storeReads`.
    private func listLiveCalls(status: CallStatus?, page: Int, perPage: Int, for exchange: ServiceThreadBox<HTTPExchange>) {
        let store = store
        let defaultRingTimeout = Int64(configuration.core.defaultRingTimeout)
        storeReads.async {
            let response: HTTPResponse
            do {
                let live = try store.liveCalls().compactMap { $0.call(defaultRingTimeout: defaultRingTimeout) }
                    .filter { status == nil || $0.callStatus == status }
                response = .json(200, LiveCallList(live, page: page, perPage: perPage))
            } catch {
                response = .error(500, .internalError, "the live calls could not be read")
            }
            self.answer(exchange, with: response)
        }
    }

    /// The HTTP answer to an op the Core refused.
    static func response(for error: CoreError) -> HTTPResponse {
        switch error.code {
        case .callNotFound, .notParticipant:
            .error(404, .notFound, error.message)
        case .groupNotFound:
            .error(404, .groupNotFound, error.message)
        case .callInProgress:
            .error(409, .callInProgress, error.message)
        case .callEnded, .callCancelled, .callRejected:
            .error(409, .callFinished, error.message)
        case .storeUnavailable:
            .error(503, .storeUnavailable, error.message)
        case .clusterUnavailable:
            .error(503, .clusterUnavailable, error.message)
        case .callOwnerUnreachable:
            .error(504, .callOwnerUnreachable, error.message)
        case .rateLimited:
            .error(429, .rateLimited, error.message)
        default:
            .error(400, .badRequest, error.message)
        }
    }
}

/// Where the answer to an admin API op on a call goes: this node's HTTP exchange, or the node
/// that forwarded the op (cluster mode).
enum CommandDestination {
    case http(ServiceThreadBox<HTTPExchange>)
    case node(ForwardTicket)
}

/// The body of `GET /v1/calls`: `{"data": [Call], "meta": {"pagination": {...}}}`. A plain
/// value; any thread.
struct LiveCallList: Encodable {
    var data: [Call]
    var meta: Meta

    struct Meta: Encodable {
        var pagination: CallLogPagination
    }

    /// Page `page` of `perPage` of `calls` (`CallControlRequest` bounds both, so no product of
    /// them overflows).
    init(_ calls: [Call], page: Int, perPage: Int) {
        let start = min(calls.count, (page - 1) * perPage)
        data = Array(calls[start..<min(calls.count, start + perPage)])
        meta = Meta(pagination: CallLogPagination(
            total: calls.count, perPage: perPage, currentPage: page, totalPages: (calls.count + perPage - 1) / perPage))
    }
}

/// The body of `GET /v1/users/{uid}/presence`: `{"uid", "online", "devices", "call"?}`. A plain
/// value; any thread.
struct UserPresenceBody: Encodable, Equatable {
    /// The user asked about.
    var uid: String
    /// Whether a device of theirs is connected (to any node).
    var online: Bool
    /// How many devices of theirs are connected.
    var devices: Int
    /// The call they take part in (its caller, or joined to it), if any.
    var call: Call?

    init(uid: String, devices: Int, call: Call?) {
        self.uid = uid
        self.online = devices > 0
        self.devices = devices
        self.call = call
    }
}
