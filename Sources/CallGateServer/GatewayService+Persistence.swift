import CallGateCore
import LWS

/// The bridge to the store: what the Core and the group table changed goes to the writer, and
/// output produced after it waits until it is durable. Service thread only.
extension GatewayService {
    /// Hands the Core's call log changes and the group changes to the writer; output produced
    /// from now on waits for them.
    func persistChanges() {
        let changes = core.takeCallLogChanges()
        countFinishedCalls(changes)
        let groupWrites = groups.takeWrites()
        guard !changes.isEmpty || !groupWrites.isEmpty else { return }
        gate.submitted(writer.submit(groupWrites + changes.map(StoreWrite.call)))
    }

    /// Performs `output` now, or once the writes before it are durable.
    func emit(_ output: HeldOutput) {
        if let output = gate.pass(output) {
            perform(output)
        }
    }

    /// The writer made everything up to `sequence` durable: the output waiting for it goes out.
    func release(upTo sequence: UInt64) {
        for output in gate.committed(upTo: sequence) {
            perform(output)
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
