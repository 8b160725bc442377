import ArgumentParser
import CallGateConsole

/// `callgate listen --as bob`: stays connected as a user, prints every push, and answers
/// incoming calls with a key or automatically (`--auto`). Runs until Ctrl-C or `q`.
struct ListenCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "listen",
        abstract: "Connect as a user and print every event; answer calls by key or automatically.",
        discussion: "Keys: a accept, r reject, b busy (the latest ringing call), h hang up, q quit."
    )

    @OptionGroup var client: ClientOptions

    @Option(help: "Answer every incoming call: accept, reject or busy.")
    var auto: AnswerPolicy?

    func run() async throws {
        let (device, events, connected) = try await client.connectedDevice()
        let endpoint = try client.endpoint
        let listener = Listener(client: device, events: events, endpoint: endpoint, policy: auto, output: ConsoleLines.print)
        let answering = auto.map { "answering every call with \($0.rawValue)" } ?? "keys: a accept, r reject, b busy, h hang up, q quit"
        ConsoleLines.print("connected to \(endpoint) as \(PushFormatter.name(connected.user)); \(answering); Ctrl-C to quit")
        if let missed = connected.missedCalls, missed.unseen > 0 {
            ConsoleLines.print(PushFormatter.describe(.missedCallsChanged(missed)))
        }
        for call in connected.activeCalls {
            ConsoleLines.print("active call: \(PushFormatter.receiver(call)) from \(PushFormatter.name(call.initiator)), \(call.callStatus.rawValue) [session \(call.sessionId)]")
        }
        let keys = TerminalKeys()
        defer { keys.restore() }
        if auto == nil {
            keys.start { character in
                guard let key = ListenKey(character) else { return }
                Task { await listener.press(key) }
            }
        }
        let signals = TerminationSignals()
        Task {
            _ = await signals.next()
            await listener.stop()
        }
        await listener.run()
    }
}

extension AnswerPolicy: ExpressibleByArgument {}
