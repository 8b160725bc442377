import CallGateCluster
import CallGateCore
import CallGateProtocol
import Foundation
import LWS

/// Where the answer to one request goes, and the store write it must wait for: an answer about
/// a call whose terminal status is not durable yet waits for it (see `StorePipeline`).
struct ReplyAddress {
    /// The request's `id`.
    let requestID: String
    /// The connection that asked.
    let connection: ConnectionID
    /// The write the answer waits for; 0 for none.
    let barrier: UInt64
    /// The call or session the request names, if any: an answer about a call this node is
    /// fenced out of while the answer waits is replaced by `ERR_CLUSTER_UNAVAILABLE`.
    var sessionId: String? = nil
    /// Cluster mode: where the answer goes when the op was forwarded here from another node
    /// (`connection` is a device there); nil for a device of this node.
    var forward: ForwardTicket? = nil
}

/// The one path from a Core outcome to the sockets: `send` persists the outcome's changes, then
/// encodes the reply and each push once, numbers the push per user in the push history, and
/// hands the bytes to every recipient socket
/// (`WebSocketConnection.send`, which writes at once when the socket can take it). Output that
/// must wait for a write to be durable, or for earlier output to its socket, goes through `emit`
/// and the pipeline instead, and out through `perform` once it may. Service thread only.
extension GatewayService {
    /// The address of the answer to `requestID` from `connection`, about `sessionId` if the
    /// request names one; `forward` when another node forwarded it.
    func address(
        _ requestID: String, on connection: ConnectionID, concerning sessionId: String? = nil,
        forward: ForwardTicket? = nil
    ) -> ReplyAddress {
        ReplyAddress(
            requestID: requestID, connection: connection, barrier: pipeline.barrier(concerning: sessionId),
            sessionId: sessionId, forward: forward)
    }

    /// Carries out the outcome of a request: its changes go to the writer, then the reply goes
    /// to the asking socket and every push to its recipients, all after the write they reveal.
    /// Returns the events of the pushes that reached a socket of this gateway.
    @discardableResult
    func send<Reply: Encodable>(_ outcome: Outcome<Reply>, answering request: ReplyAddress) -> [EventName] {
        let barrier = max(request.barrier, persist(outcome))
        switch outcome.reply {
        case .success(let value):
            succeed(request, with: value, after: barrier)
        case .failure(let error):
            fail(request, code: error.code, message: error.message, after: barrier)
        }
        return deliver(outcome.deliveries, after: barrier)
    }

    /// Carries out the outcome of a timer or a disconnect, which answers nobody.
    func send(_ outcome: Outcome<Void>) {
        deliver(outcome.deliveries, after: persist(outcome))
    }

    /// Answers a frame that is not a request (binary, or not a request frame) with an error;
    /// `requestID` is its `id` when one could be read.
    func refuse(frameFrom connection: ConnectionID, requestID: String?, message: String) {
        emit(.frame(connection, OutboundFrame(ReplyFrame.failure(id: requestID, code: .badRequest, message: message))))
    }

    /// Replies to a request with an error.
    func fail(_ request: ReplyAddress, code: ErrorCode, message: String, after barrier: UInt64? = nil) {
        let frame = ReplyFrame.failure(id: request.requestID, code: code, message: message)
        emit(reply(frame, to: request), after: barrier ?? request.barrier, fence: fence(of: request))
    }

    /// Replies to a request with a value.
    func succeed(_ request: ReplyAddress, with result: some Encodable, after barrier: UInt64? = nil) {
        let frame = ReplyFrame.success(id: request.requestID, result: result)
        emit(reply(frame, to: request), after: barrier ?? request.barrier, fence: fence(of: request))
    }

    /// What the answer to `request` becomes if the call it names is fenced out while the answer
    /// waits (cluster mode): the op had no durable effect, and the node that took the call over
    /// takes it when the device asks again.
    private func fence(of request: ReplyAddress) -> OutputFence<HeldOutput, String>? {
        guard cluster != nil, let sessionId = request.sessionId else { return nil }
        let frame = ReplyFrame.failure(
            id: request.requestID, code: .clusterUnavailable,
            message: "another node took this call over while this node was cut off from the cluster; this op had no effect: try again")
        return OutputFence(subject: sessionId, instead: reply(frame, to: request))
    }

    /// The output that carries reply `frame` to the device that asked: its socket, or the node
    /// that forwarded the request.
    private func reply(_ frame: Data, to request: ReplyAddress) -> HeldOutput {
        guard let forward = request.forward else { return .frame(request.connection, OutboundFrame(frame)) }
        return .answer(forward, connection: request.connection, frame: Array(frame))
    }

    /// Hands the outcome's log changes (with its webhook events, and the admin API's group
    /// changes) to the writer, counts the calls it finished, re-arms the Core timer and (cluster
    /// mode) writes the busy claims it changed, and the active-call entries once the write is
    /// durable, before any push of it is published. Returns the write its output waits for.
    private func persist<Reply>(_ outcome: Outcome<Reply>) -> UInt64 {
        for call in outcome.finishedCalls {
            metrics.callFinished(call.callStatus)
        }
        armCoreTimer(at: outcome.nextDeadline)
        writeClaims(of: outcome.engagements)
        let barrier = submit(outcome.logChanges, webhookWrites: webhookWrites(outcome.webhookEvents))
        indexActiveCalls(of: outcome, after: barrier)
        return barrier
    }

    /// Hands `logChanges`, the group changes made since the last submit and `webhookWrites` to
    /// the writer; in cluster mode each changed group is announced to the other nodes once its
    /// change is durable. Returns the write that output revealing them waits for.
    func submit(_ logChanges: [CallLogRecord], webhookWrites: [StoreWrite] = []) -> UInt64 {
        let groupWrites = groups.takeWrites()
        let barrier = pipeline.submit(logChanges, groupWrites: groupWrites, webhookWrites: webhookWrites)
        if cluster != nil {
            for write in groupWrites {
                switch write {
                case .putGroup(let group): emit(.groupChanged(group.guid), after: barrier)
                case .deleteGroup(let guid): emit(.groupChanged(guid), after: barrier)
                case .call, .webhook: break
                }
            }
        }
        return barrier
    }

    /// Numbers each push for each of its users in the push history, and hands it to that
    /// user's sockets on this gateway: the frame's head is encoded once per push and shared, its
    /// `seq` tail is the user's. Straight to the socket when nothing holds it back, else through
    /// `emit`. In cluster mode each push goes instead, after the same barrier, to Redis once per
    /// user, which numbers and publishes it for their devices on every node, this one too
    /// (`+Pushes`). Returns the events of the pushes that reached a socket of this node, or in
    /// cluster mode were handed to Redis.
    @discardableResult
    private func deliver(_ deliveries: [Delivery], after barrier: UInt64) -> [EventName] {
        var sent: [EventName] = []
        for delivery in deliveries {
            let frame = HistoryFrame(delivery.push)
            if let cluster {
                let push = ClusterPush(frame, from: cluster.nodeID, excluding: delivery.excluding)
                let fence = OutputFence<HeldOutput, String>(subject: delivery.push.sessionId, instead: nil)
                for uid in delivery.users {
                    emit(.publish(uid: uid, push), after: barrier, fence: fence)
                }
                sent.append(delivery.push.event)
                continue
            }
            var reached = 0
            var written = 0
            for uid in delivery.users {
                guard let position = history.record(frame, for: uid, excluding: delivery.excluding) else { continue }
                let devices = localConnections(of: uid)
                guard devices.contains(where: { $0 != delivery.excluding }) else { continue }
                let numbered = OutboundFrame(frame.head, PushFrame.tail(seq: position.seq))
                let (devicesReached, framesWritten) = hand(numbered, to: devices, excluding: delivery.excluding, after: barrier)
                reached += devicesReached
                written += framesWritten
            }
            guard reached > 0 else { continue }
            metrics.pushesDelivered(delivery.push.event, count: reached)
            metrics.framesSent(written)
            sent.append(delivery.push.event)
        }
        return sent
    }

    /// Hands one numbered push to `devices` but `excluded`: straight to each socket when nothing
    /// holds it back, else through `emit`. Returns how many devices it went to and how many
    /// frames were written or queued at once.
    func hand(
        _ numbered: OutboundFrame, to devices: [ConnectionID], excluding excluded: ConnectionID?, after barrier: UInt64
    ) -> (reached: Int, written: Int) {
        var reached = 0
        var written = 0
        for id in devices where id != excluded {
            reached += 1
            if pipeline.isClear(for: id, after: barrier) {
                if write(numbered, to: id) {
                    written += 1
                }
            } else {
                emit(.frame(id, numbered), after: barrier)
            }
        }
        return (reached, written)
    }

    /// Performs `output` now, or once write `barrier` is durable and the earlier output to its
    /// socket went (or as `fence` says, if the call it tells of is fenced out meanwhile). A
    /// socket with `maxQueuedFrames` outputs waiting already is closed with 4008 instead, as when
    /// its outbound queue is full: what waits for the store counts against the same cap, so no
    /// socket piles up output while the store is behind.
    func emit(_ output: HeldOutput, after barrier: UInt64 = 0, fence: OutputFence<HeldOutput, String>? = nil) {
        context.assertOnServiceThread()
        if let id = output.connection, pipeline.waitingCount(for: id) >= configuration.maxQueuedFrames {
            if let socket = connections[id]?.socket, !socket.isClosing {
                metrics.framesDropped(socket.queuedFrames + pipeline.waitingCount(for: id) + 1)
                socket.close(code: CloseCode.tooSlow, reason: "too much output waiting for the store", flushFirst: false)
            }
            return
        }
        if let output = pipeline.pass(output, after: barrier, fence: fence) {
            perform(output)
        } else if case .answer(let forward, _, _) = output {
            tellHeld(forward)
        }
    }

    /// The writer made everything up to `sequence` durable: the output waiting for it goes out,
    /// but for what tells of the calls the store fenced out (`+Fencing`).
    func release(upTo sequence: UInt64, fencedOut sessions: Set<String> = []) {
        context.assertOnServiceThread()
        if !sessions.isEmpty {
            letGo(fencedOut: sessions)
        }
        for output in pipeline.committed(upTo: sequence) {
            perform(output)
        }
    }

    /// Why ops that write the call log are refused now, nil when they are not: the writer has
    /// `maxQueuedWrites` writes waiting, or `maxHeldOutput` outputs wait for them. Other ops,
    /// reads and the ringing already under way go on.
    func storeBacklog() -> String? {
        let queued = pipeline.writer.health.queuedWrites
        if queued >= configuration.maxQueuedWrites {
            return "the call log store is behind (\(queued) writes waiting); this op writes the call log and was not done: try again shortly"
        }
        if pipeline.heldCount >= configuration.maxHeldOutput {
            return "the call log store is behind (\(pipeline.heldCount) outputs waiting for it); this op writes the call log and was not done: try again shortly"
        }
        return nil
    }

    /// Why no new call may start now: the store refuses every write (a call nobody can hear of
    /// until it is durable would only wait); nil while it takes them.
    func storeFailure() -> String? {
        let health = pipeline.writer.health
        guard health.failingSince != nil else { return nil }
        return "the call log store cannot commit (\(health.lastError ?? "it refuses writes")), so no call can start until it can: try again shortly"
    }

    private func perform(_ output: HeldOutput) {
        switch output {
        case .frame(let id, let frame):
            if write(frame, to: id) {
                metrics.framesSent(1)
            }
        case .close(let id, let code, let reason):
            connections[id]?.socket.close(code: code, reason: reason)
        case .http(let exchange, let response):
            write(response, to: exchange.value)
        case .ringHandedOver(let since):
            metrics.rang(after: .now - since)
        case .publish(let uid, let push):
            publish(push, to: uid)
        case .index(let uid, let calls):
            cluster?.activeCalls.write(uid, calls: calls)
        case .groupChanged(let guid):
            cluster?.bus.announceGroupChange(guid)
        case .answer(let forward, _, let frame):
            cluster?.bus.send(.answer(ticket: forward.number, frame: frame), toNode: forward.node) { [logger] result in
                if case .failure(let failure) = result {
                    logger.warning("answer to a forwarded op lost", metadata: ["node": "\(forward.node)", "error": "\(failure)"])
                }
            }
        }
    }

    /// The devices of `uid` whose sockets this node holds, oldest first: in cluster mode the
    /// Core also registers devices of other nodes that forwarded ops here.
    func localConnections(of uid: String) -> [ConnectionID] {
        let devices = core.connections(of: uid)
        guard !remoteDevices.isEmpty else { return devices }
        return devices.filter { connections[$0] != nil }
    }

    /// Hands `frame` to the socket of connection `id`; returns whether it was written or queued
    /// (false too when the connection is gone). When this frame overflows the socket's queue
    /// (which closes it with 4008), counts it and the frames the close discards as dropped; a
    /// socket whose write failed is not a slow consumer.
    func write(_ frame: OutboundFrame, to id: ConnectionID) -> Bool {
        guard let socket = connections[id]?.socket else { return false }
        let wasClosing = socket.isClosing
        let waiting = socket.queuedFrames
        if socket.send(frame) {
            return true
        }
        if !wasClosing && socket.localCloseCode == CloseCode.tooSlow {
            metrics.framesDropped(waiting + 1)
        }
        return false
    }
}
