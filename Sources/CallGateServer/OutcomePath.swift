import CallGateCore
import CallGateProtocol
import Foundation
import LWS

/// The one path from a Core outcome to the sockets, once its changes went to the writer: the
/// reply goes to the asking socket and each push to its recipients, all after the write they
/// reveal. A push is encoded once and handed to the fabric, which publishes it for its users'
/// devices (`Fabric.publish`) and gives it back here for the sockets of this node (`hand`).
/// Output that must wait for a write to be durable, or for earlier output to its socket, is
/// held in the pipeline (`emit`) and goes out once it may (`release`).
///
/// The sockets are passed in (`OutputSockets`: the hub, or a test's), and what goes elsewhere
/// than a socket is the delegate's, so `OutcomePathTests` runs it without a socket. Service
/// thread only.
final class OutcomePath {
    /// The writer, and the gate holding output back until what it reveals is durable.
    let pipeline: StorePipeline
    private let sockets: any OutputSockets
    private let metrics: GatewayMetrics
    /// Output waiting for the store per socket above which it is closed with 4008.
    private let maxQueuedFrames: Int
    /// Whether an answer about a call is replaced when the call is fenced out while it waits
    /// (cluster mode, where another node may take a call over).
    private let fencesAnswers: Bool
    /// Stops a debug build when called off the service thread.
    private let assertServiceThread: () -> Void
    /// The service: where pushes are published, and the output that leaves by another way.
    weak var delegate: (any OutcomePathDelegate)?

    init(
        pipeline: StorePipeline, sockets: any OutputSockets, metrics: GatewayMetrics,
        maxQueuedFrames: Int, fencesAnswers: Bool, assertServiceThread: @escaping () -> Void
    ) {
        self.assertServiceThread = assertServiceThread
        self.pipeline = pipeline
        self.sockets = sockets
        self.metrics = metrics
        self.maxQueuedFrames = maxQueuedFrames
        self.fencesAnswers = fencesAnswers
    }

    // MARK: Outcomes

    /// Sends the outcome of a request whose changes the writer has as write `barrier` (0: none):
    /// the reply to the asking socket, then every push to its recipients. Returns the events of
    /// the pushes that reached a socket of this gateway (or, in cluster mode, were published).
    @discardableResult
    func send<Reply: Encodable>(_ outcome: Outcome<Reply>, answering request: ReplyAddress, after barrier: UInt64) -> [EventName] {
        switch outcome.reply {
        case .success(let value):
            succeed(request, with: value, after: barrier)
        case .failure(let error):
            fail(request, code: error.code, message: error.message, after: barrier)
        }
        return deliver(outcome.deliveries, after: barrier)
    }

    /// Answers a frame that is not a request (binary, or not a request frame) with an error;
    /// `requestID` is its `id` when one could be read.
    func refuse(frameFrom connection: ConnectionID, requestID: String?, message: String) {
        metrics.replied(error: .badRequest)
        emit(.frame(connection, OutboundFrame(ReplyFrame.failure(id: requestID, code: .badRequest, message: message))))
    }

    /// Replies to a request with an error, after write `barrier` and the call's latest write.
    func fail(_ request: ReplyAddress, code: ErrorCode, message: String, after barrier: UInt64 = 0) {
        metrics.replied(error: code)
        let frame = ReplyFrame.failure(id: request.requestID, code: code, message: message)
        answer(request, with: frame, after: max(barrier, self.barrier(for: request)))
    }

    /// Replies to a request with a value, after write `barrier` and the call's latest write.
    func succeed(_ request: ReplyAddress, with result: some Encodable, after barrier: UInt64 = 0) {
        let frame = ReplyFrame.success(id: request.requestID, result: result)
        answer(request, with: frame, after: max(barrier, self.barrier(for: request)))
    }

    /// Emits the reply `frame` to `request` after write `barrier`; for a timed request, records
    /// how long the op took to answer: now when the reply went out at once, else through a
    /// marker behind it.
    private func answer(_ request: ReplyAddress, with frame: Data, after barrier: UInt64) {
        let emitted = emit(reply(frame, to: request), after: barrier, fence: fence(of: request))
        guard let timing = request.timing else { return }
        switch emitted {
        case .now: metrics.answered(timing.op, after: .now - timing.since)
        case .held: emit(.answered(timing), after: barrier)
        case .dropped: break
        }
    }

    /// The write any answer about the call `request` names waits for: the call's latest write
    /// while that is not durable (so not even an error reply tells of a call or a status before
    /// the log has it), else 0.
    private func barrier(for request: ReplyAddress) -> UInt64 {
        pipeline.barrier(concerning: request.sessionId)
    }

    /// What the answer to `request` becomes if the call it names is fenced out while the answer
    /// waits (cluster mode): the op had no durable effect, and the node that took the call over
    /// takes it when the device asks again.
    private func fence(of request: ReplyAddress) -> OutputFence<HeldOutput, String>? {
        guard fencesAnswers, let sessionId = request.sessionId else { return nil }
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

    /// Answers an admin API op on call `sessionId` with `response`, after write `barrier` and
    /// the call's latest write: on this node's HTTP exchange, or to the node that forwarded it.
    /// If the call is fenced out while the answer waits (cluster mode), the op had no durable
    /// effect and the answer becomes 503 `ERR_CLUSTER_UNAVAILABLE`.
    func answer(_ response: HTTPResponse, to destination: CommandDestination, about sessionId: String, after barrier: UInt64) {
        let output: (HTTPResponse) -> HeldOutput = { response in
            switch destination {
            case .http(let exchange): .http(exchange, response)
            case .node(let forward): .commandAnswer(forward, response)
            }
        }
        let fence = fencesAnswers ? OutputFence(subject: sessionId, instead: output(.error(
            503, .clusterUnavailable,
            "another node took this call over while this node was cut off from the cluster; this op had no effect: try again"))) : nil
        emit(output(response), after: max(barrier, pipeline.barrier(concerning: sessionId)), fence: fence)
    }

    // MARK: Pushes

    /// Publishes each push, encoded once, for the devices of its users (`Fabric.publish`).
    /// Returns the events of the pushes that reached a socket of this node, or were handed on
    /// to reach them on every node.
    @discardableResult
    func deliver(_ deliveries: [Delivery], after barrier: UInt64) -> [EventName] {
        var sent: [EventName] = []
        for delivery in deliveries where delegate?.publish(delivery, HistoryFrame(delivery.push), after: barrier) == true {
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
                if sockets.write(numbered, to: id) {
                    written += 1
                }
            } else {
                emit(.frame(id, numbered), after: barrier)
            }
        }
        return (reached, written)
    }

    // MARK: Holding back

    /// Performs `output` now, or once write `barrier` is durable and the earlier output to its
    /// socket went (or as `fence` says, if the call it tells of is fenced out meanwhile). A
    /// socket with `maxQueuedFrames` outputs waiting already is closed with 4008 instead, as when
    /// its outbound queue is full: what waits for the store counts against the same cap, so no
    /// socket piles up output while the store is behind. Returns what became of it.
    @discardableResult
    func emit(_ output: HeldOutput, after barrier: UInt64 = 0, fence: OutputFence<HeldOutput, String>? = nil) -> Emitted {
        assertServiceThread()
        switch pipeline.pass(output, after: barrier, fence: fence, cap: maxQueuedFrames) {
        case .go(let output):
            perform(output)
            return .now
        case .held:
            switch output {
            case .answer(let forward, _, _), .commandAnswer(let forward, _):
                delegate?.answerHeld(forward)
            default:
                break
            }
            return .held
        case .full(let waiting):
            if let id = output.connection {
                sockets.closeTooSlow(id, held: waiting)
            }
            return .dropped
        }
    }

    /// What `emit` did with an output.
    enum Emitted {
        /// Performed at once.
        case now
        /// Held until the write it waits for is durable (and the output before it went).
        case held
        /// Dropped: its socket had too much waiting and was closed with 4008.
        case dropped
    }

    /// The writer made everything up to `sequence` durable: the output waiting for it goes out.
    func release(upTo sequence: UInt64) {
        assertServiceThread()
        for output in pipeline.committed(upTo: sequence) {
            perform(output)
        }
    }

    private func perform(_ output: HeldOutput) {
        switch output {
        case .frame(let id, let frame):
            if sockets.write(frame, to: id) {
                metrics.framesSent(1)
            }
        case .close(let id, let code, let reason):
            sockets.close(id, code: code, reason: reason)
        case .ringHandedOver(let since):
            metrics.rang(after: .now - since)
        case .answered(let timing):
            metrics.answered(timing.op, after: .now - timing.since)
        case .http, .publish, .index, .groupChanged, .answer, .commandAnswer:
            delegate?.perform(output)
        }
    }
}

/// Where the answer to one request goes. An answer about a call whose latest write is not
/// durable yet waits for it (see `StorePipeline`), as it stands when the answer is sent: an op
/// that runs later than it was taken up (after a token check, or on the call's owner) waits for
/// what happened to the call meanwhile.
struct ReplyAddress {
    /// The request's `id`.
    let requestID: String
    /// The connection that asked.
    let connection: ConnectionID
    /// The call or session the request names, if any: an answer about a call this node is
    /// fenced out of while the answer waits is replaced by `ERR_CLUSTER_UNAVAILABLE`.
    var sessionId: String? = nil
    /// Cluster mode: where the answer goes when the op was forwarded here from another node
    /// (`connection` is a device there); nil for a device of this node.
    var forward: ForwardTicket? = nil
    /// The op and when this node took it up, for `callgate_op_seconds`; nil: not timed.
    var timing: OpTiming? = nil
}

/// A request's op and when this node took it up: the answer's marker (`HeldOutput.answered`)
/// records the time from then until the reply was released to its socket or node.
struct OpTiming {
    let op: Op
    let since: ContinuousClock.Instant
}

/// What the outcome path needs of the sockets: the hub, or a test's. Service thread only.
protocol OutputSockets: AnyObject {
    /// Hands `frame` to the socket of connection `id`; whether it was written or queued.
    func write(_ frame: OutboundFrame, to id: ConnectionID) -> Bool
    /// Closes the socket of `id` with `code`, after what is queued on it.
    func close(_ id: ConnectionID, code: UInt16, reason: String)
    /// Closes the socket of `id` at once with 4008: `held` outputs wait for the store.
    func closeTooSlow(_ id: ConnectionID, held: Int)
}

/// The service's side of the outcome path. Service thread only.
protocol OutcomePathDelegate: AnyObject {
    /// Publishes `frame`, the push of `delivery`, after write `barrier` (see `Fabric.publish`);
    /// returns whether it went to a device of this node or on to every node.
    func publish(_ delivery: Delivery, _ frame: HistoryFrame, after barrier: UInt64) -> Bool
    /// Carries out output that leaves by another way than a socket of this node: an HTTP
    /// response, or (cluster mode) a message for Redis or another node.
    func perform(_ output: HeldOutput)
    /// Cluster mode: the answer to an op forwarded from another node waits for the store; the
    /// node that forwarded it is told, so it waits longer for it.
    func answerHeld(_ forward: ForwardTicket)
}

extension ConnectionHub: OutputSockets {}
