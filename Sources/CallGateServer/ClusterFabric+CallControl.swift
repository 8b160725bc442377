import CallGateCluster
import CallGateCore
import CallGateProtocol
import Foundation
import LWS

/// Cluster mode: the admin API's call control across the nodes. A ring on a user's behalf
/// claims them as a device's `initiateCall` claims its caller and makes the call this node's;
/// an op on a call another node owns is forwarded there (`ClusterMessage.command`) and its HTTP
/// response comes back (`ClusterMessage.answer`) to be written here, or 504
/// `ERR_CALL_OWNER_UNREACHABLE` when it does not in time; a user's presence is read from what
/// every node wrote to Redis. Service thread only.
extension ClusterFabric {
    func startingServerCall(
        by initiator: String, ringing: [String], initiate: @escaping (CalleesElsewhere) -> Outcome<Call>,
        then send: @escaping (Outcome<Call>) -> Void, refused: @escaping (HTTPResponse) -> Void
    ) {
        claim(initiator, ringing: ringing, start: nil, while: { true }) { refusal in
            switch refusal {
            case .held(let holder):
                refused(.error(409, .callInProgress, holder?.sessionId.map {
                    "\(initiator) is in call \($0) already"
                } ?? "\(initiator) is starting or answering a call already"))
            case .startsUsedUp:
                refused(.error(409, .callInProgress, "\(initiator) may start no call now"))
            case .unreachable(let failure):
                refused(.error(503, .clusterUnavailable, "cannot claim \(initiator) as busy in Redis: \(failure); try again shortly"))
            }
        } then: { [self] elsewhere in
            let outcome = initiate(elsewhere)
            if case .success(let call) = outcome.reply {
                recordOwner(of: call)
            }
            // Its first push (`onOutgoingCallRinging` to the initiator) announces the initiator's
            // devices on other nodes to this one: the call counts them present once answered.
            send(outcome)
        }
    }

    func route(_ command: CallCommand, for exchange: ServiceThreadBox<HTTPExchange>, local: @escaping () -> Void) {
        let sessionId = command.sessionId
        guard !core.knows(sessionId) else {
            local()
            return
        }
        cluster.owners.owner(of: sessionId) { [self] result in
            switch result {
            case .success(let owner?) where owner != cluster.nodeID && !core.knows(sessionId):
                guard let body = try? JSONEncoder().encode(command) else {
                    output.emit(.http(exchange, .error(500, .internalError, "the op could not be encoded")))
                    return
                }
                send(.admin(exchange), to: owner) { [cluster] ticket in
                    .command(ticket: ticket, from: cluster.nodeID, body: Array(body))
                }
            case .success:
                local()
            case .failure(let failure):
                output.emit(.http(exchange, .error(
                    503, .clusterUnavailable, "could not learn which node owns \(sessionId): \(failure); try again shortly")))
            }
        }
    }

    /// Runs an admin API op that node `forward.node` forwarded here, on a call this node owns.
    func runCommand(_ body: [UInt8], answering forward: ForwardTicket) {
        guard let command = try? JSONDecoder().decode(CallCommand.self, from: Data(body)) else {
            logger.warning("malformed forwarded command dropped", metadata: ["node": "\(forward.node)"])
            return
        }
        if !mayRunCalls() {
            output.emit(.commandAnswer(forward, .error(
                503, .clusterUnavailable, "the node that owns this call is cut off from the cluster; try again shortly")))
            return
        }
        if let backlog = service.storeBacklog() {
            output.emit(.commandAnswer(forward, .error(503, .storeUnavailable, backlog)))
            return
        }
        service.run(command, answering: .node(forward))
    }

    /// Sends the response to a command another node forwarded here back to it.
    func sendCommandAnswer(_ response: HTTPResponse, to forward: ForwardTicket) {
        cluster.bus.send(.answer(ticket: forward.number, frame: response.envelope), toNode: forward.node) { [logger] result in
            if case .failure(let failure) = result {
                logger.warning("answer to a forwarded command lost", metadata: ["node": "\(forward.node)", "error": "\(failure)"])
            }
        }
    }

    /// The devices of `uid` on every live node (this node's sockets, and what the others
    /// wrote), and the call they take part in: this node's, else the one another node's claim
    /// names, as that node last wrote it.
    func presence(of uid: String, then done: @escaping (UserPresenceBody?) -> Void) {
        cluster.client.send(["HGETALL", ClusterKeys.presence(of: uid)]) { [self] result in
            guard case .success(let reply) = result else {
                done(nil)
                return
            }
            let devices = devices(of: uid).count + devicesElsewhere(UserPresence.entries(in: reply))
            if let call = core.engagingCall(of: uid) {
                done(UserPresenceBody(uid: uid, devices: devices, call: call))
                return
            }
            engagingCallElsewhere(of: uid) { call in
                done(call.map { UserPresenceBody(uid: uid, devices: devices, call: $0) })
            }
        }
    }

    /// The call of another node that engages `uid` (`.some(nil)`: none), nil when Redis could
    /// not be read.
    private func engagingCallElsewhere(of uid: String, then done: @escaping (Call??) -> Void) {
        cluster.busy.holder(of: uid) { [self] result in
            guard case .success(let claim) = result else {
                done(nil)
                return
            }
            guard let claim, let sessionId = claim.sessionId, claim.node != cluster.nodeID,
                  cluster.membership.liveRuns[claim.node] != nil
            else {
                done(.some(nil))
                return
            }
            cluster.activeCalls.read(uid) { found in
                guard case .success(let entries) = found else {
                    done(nil)
                    return
                }
                let decoder = JSONDecoder()
                let calls = entries.filter { $0.node == claim.node }
                    .flatMap { (try? decoder.decode([Call].self, from: Data($0.calls))) ?? [] }
                done(.some(calls.first { $0.sessionId == sessionId }))
            }
        }
    }
}

extension HTTPResponse {
    /// The response as one node sends it to another: `"<status>\n<body>"` (a JSON body, as every
    /// call control response has).
    var envelope: [UInt8] {
        Array("\(status)\n".utf8) + body
    }

    /// The response `envelope` holds; 502 when it holds none.
    init(envelope: [UInt8]) {
        guard let newline = envelope.firstIndex(of: UInt8(ascii: "\n")),
              let status = Int(String(decoding: envelope[..<newline], as: UTF8.self)), (200...599).contains(status)
        else {
            self = .error(502, .internalError, "the node that owns this call answered something that is no response")
            return
        }
        self.init(status: status, contentType: HTTPResponse.jsonContentType, body: Array(envelope[(newline + 1)...]))
    }
}
