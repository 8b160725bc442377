import CallGateCore
import CallGateProtocol
import Foundation
import LWS

/// The service's side of an outcome: `send` persists its changes (the writer takes the call log,
/// group and webhook writes; the Core timer is re-armed; in cluster mode the busy claims and the
/// active-call entries are written), then hands the reply and the pushes to the outcome path
/// (`OutcomePath`), which holds them until what they reveal is durable. As the path's delegate
/// it hands pushes to the fabric and carries out what leaves by another way than a socket.
/// Service thread only.
extension GatewayService: OutcomePathDelegate {
    /// Carries out the outcome of a request: its changes go to the writer, then the reply goes
    /// to the asking socket and every push to its recipients, all after the write they reveal
    /// (and after write `barrier`, for a reply that lists what earlier writes hold). Returns the
    /// events of the pushes that reached a socket of this gateway.
    @discardableResult
    func send<Reply: Encodable>(_ outcome: Outcome<Reply>, answering request: ReplyAddress, after barrier: UInt64 = 0) -> [EventName] {
        output.send(outcome, answering: request, after: max(barrier, persist(outcome)))
    }

    /// Carries out the outcome of a timer or a disconnect, which answers nobody. A push about a
    /// call whose latest write is not durable yet (a ring progress right after the ring) waits
    /// for that write too.
    func send(_ outcome: Outcome<Void>) {
        let barrier = outcome.deliveries.reduce(persist(outcome)) { barrier, delivery in
            max(barrier, output.pipeline.barrier(concerning: delivery.push.sessionId))
        }
        output.deliver(outcome.deliveries, after: barrier)
    }

    /// Hands the outcome's log changes (with its webhook events, and the admin API's group
    /// changes) to the writer, counts the calls it finished, re-arms the Core timer and tells
    /// the fabric (which, in cluster mode, writes the busy claims it changed and the active-call
    /// entries once the write is durable, before any push of it is published). Returns the write
    /// its output waits for.
    func persist<Reply>(_ outcome: Outcome<Reply>) -> UInt64 {
        for call in outcome.finishedCalls {
            metrics.callFinished(call.callStatus)
        }
        armCoreTimer(at: outcome.nextDeadline)
        let barrier = submit(outcome.logChanges, webhookWrites: webhookWrites(outcome.webhookEvents))
        fabric.persisted(outcome, after: barrier)
        return barrier
    }

    /// Hands `logChanges`, the group changes made since the last submit and `webhookWrites` to
    /// the writer; the fabric hears of the group changes (in cluster mode each is announced to
    /// the other nodes once durable). Returns the write that output revealing them waits for.
    func submit(_ logChanges: [CallLogRecord], webhookWrites: [StoreWrite] = []) -> UInt64 {
        let groupWrites = groups.takeWrites()
        let barrier = pipeline.submit(logChanges, groupWrites: groupWrites, webhookWrites: webhookWrites)
        if !groupWrites.isEmpty {
            fabric.groupsWritten(groupWrites, after: barrier)
        }
        return barrier
    }

    /// The writer made everything up to `sequence` durable: the output waiting for it goes out,
    /// but for what tells of the calls the store fenced out (`+Fencing`).
    func release(upTo sequence: UInt64, fencedOut sessions: Set<String> = []) {
        context.assertOnServiceThread()
        if !sessions.isEmpty {
            fabric.letGo(fencedOut: sessions)
        }
        output.release(upTo: sequence)
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

    // MARK: OutcomePathDelegate

    func publish(_ delivery: Delivery, _ frame: HistoryFrame, after barrier: UInt64) -> Bool {
        fabric.publish(delivery, frame, after: barrier)
    }

    /// Writes an HTTP response, or hands output for other nodes to the fabric.
    func perform(_ output: HeldOutput) {
        switch output {
        case .http(let exchange, let response):
            write(response, to: exchange.value)
        case .publish, .index, .groupChanged, .answer, .commandAnswer:
            fabric.perform(output)
        case .frame, .close, .ringHandedOver, .answered:
            break  // the outcome path performs these itself
        }
    }

    func answerHeld(_ forward: ForwardTicket) {
        fabric.answerHeld(forward)
    }
}
