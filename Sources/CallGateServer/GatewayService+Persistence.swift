import CallGateCore
import CallGateProtocol
import LWS

/// The bridge to the store: what the Core and the group table changed goes to the writer, and
/// output that reveals a terminal call status or a group change waits until it is durable.
/// Service thread only.
extension GatewayService {
    /// Starts the output of a new event (a request, a timer, a close, an answer from another
    /// thread): it waits for nothing yet, or, for a request about `sessionId`, for that call's
    /// terminal status write if it is not durable yet (so not even an error reply tells of the
    /// status before the log has it).
    func beginOutput(concerning sessionId: String? = nil) {
        barrier = sessionId.flatMap { pendingTerminal[$0] } ?? 0
    }

    /// Hands the Core's call log changes and the group changes to the writer. If they hold a
    /// terminal call status or a group change, the output produced from now on waits for them.
    func persistChanges() {
        let changes = core.takeCallLogChanges()
        countFinishedCalls(changes)
        let groupWrites = groups.takeWrites()
        guard !changes.isEmpty || !groupWrites.isEmpty else { return }
        let sequence = writer.submit(groupWrites + changes.map(StoreWrite.call))
        let terminal = changes.filter { $0.callStatus.isTerminal }
        for record in terminal {
            pendingTerminal[record.sessionId] = sequence
        }
        if !terminal.isEmpty || !groupWrites.isEmpty {
            barrier = sequence
        }
    }

    /// Performs `output` now, or once the write it waits for is durable and the earlier output
    /// to its socket went. A socket with `maxQueuedFrames` outputs waiting already is closed
    /// with 4008 instead, as when its outbound queue is full: what waits for the store counts
    /// against the same cap, so no socket piles up output while the store is behind.
    func emit(_ output: HeldOutput) {
        context.assertOnServiceThread()
        if let id = output.connection, gate.waitingCount(for: id) >= configuration.maxQueuedFrames {
            if let socket = sockets[id], !socket.isClosing {
                metrics.framesDropped(socket.queuedFrames + gate.waitingCount(for: id) + 1)
                socket.close(code: CloseCode.tooSlow, reason: "too much output waiting for the store", flushFirst: false)
            }
            return
        }
        if let output = gate.pass(output, to: output.connection, after: barrier) {
            perform(output)
        }
    }

    /// Why ops that write the call log are refused now, nil when they are not: the writer has
    /// `maxQueuedWrites` writes waiting, or `maxHeldOutput` outputs wait for them. Other ops,
    /// reads and the ringing already under way go on.
    func storeBacklog() -> String? {
        let queued = writer.health.queuedWrites
        if queued >= configuration.maxQueuedWrites {
            return "the call log store is behind (\(queued) writes waiting); this op writes the call log and was not done: try again shortly"
        }
        if gate.heldCount >= configuration.maxHeldOutput {
            return "the call log store is behind (\(gate.heldCount) outputs waiting for it); this op writes the call log and was not done: try again shortly"
        }
        return nil
    }

    /// The writer made everything up to `sequence` durable: the output waiting for it goes out.
    func release(upTo sequence: UInt64) {
        context.assertOnServiceThread()
        for output in gate.committed(upTo: sequence) {
            perform(output)
        }
        if !pendingTerminal.isEmpty {
            pendingTerminal = pendingTerminal.filter { $0.value > sequence }
        }
    }

    private func perform(_ output: HeldOutput) {
        switch output {
        case .frame(let id, let frame):
            if let socket = sockets[id] {
                queue(frame, on: socket)
            }
        case .close(let id, let code, let reason):
            sockets[id]?.close(code: code, reason: reason)
        case .http(let exchange, let response):
            write(response, to: exchange.value)
        case .ringHandedOver(let since):
            metrics.rang(after: .now - since)
        }
    }
}
