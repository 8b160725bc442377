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
    /// to its socket went.
    func emit(_ output: HeldOutput) {
        if let output = gate.pass(output, to: output.connection, after: barrier) {
            perform(output)
        }
    }

    /// The writer made everything up to `sequence` durable: the output waiting for it goes out.
    func release(upTo sequence: UInt64) {
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
