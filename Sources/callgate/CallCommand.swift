import ArgumentParser
import CallGateConsole
import CallGateProtocol

/// `callgate call bob --as alice`: rings a user (or a group with `--group`), prints what
/// happens, and hangs up on Ctrl-C. Exits when the call is over.
struct CallCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "call",
        abstract: "Ring a user or a group and print what happens; Ctrl-C hangs up."
    )

    @Argument(help: "Who to call: a uid, or a group id with --group.")
    var receiver: String

    @OptionGroup var client: ClientOptions

    @Flag(help: "A video call (default audio).")
    var video = false

    @Flag(help: "The receiver is a group id.")
    var group = false

    func run() async throws {
        let (device, events, _) = try await client.connectedDevice()
        let endpoint = try client.endpoint
        let caller = Caller(client: device, events: events, endpoint: endpoint, output: ConsoleLines.print)
        do {
            _ = try await caller.ring(receiver, receiverType: group ? .group : .user, callType: video ? .video : .audio)
        } catch {
            await device.close()
            throw CommandFailure(GatewayProblem.explain(error, endpoint: endpoint, receiver: group ? receiver : nil))
        }
        let signals = TerminationSignals()
        Task {
            _ = await signals.next()
            await caller.hangUp()
        }
        if await caller.follow() == .connectionLost {
            throw CommandFailure("the gateway at \(endpoint) closed the connection during the call")
        }
    }
}
