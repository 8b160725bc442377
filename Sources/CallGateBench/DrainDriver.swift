import CallGateProtocol

/// `drain`: every socket is held, spread over the gateways (`--port` and `--also-port`), while
/// one of them drains (the operator's SIGTERM or `POST /v1/admin/drain`): each socket it closes
/// with 1012 and a reconnect hint connects again, at a random moment within the hint, to the
/// next gateway, with its token, as callgate.js and CallGateKit do. Measures when the moves
/// happened (`MoveTimeline`) and whether any failed. Service thread of the bench loop.
final class DrainDriver: ScenarioDriver {
    private unowned let engine: BenchEngine
    /// Moved sockets waiting for their moment, with it (monotonic ns).
    private var waiting: [(due: UInt64, socket: BenchSocket)] = []
    /// Moved sockets on their way to another gateway: waiting, or opened and not yet connected.
    private var moving: Set<Int> = []
    private var random = SystemRandomNumberGenerator()

    init(engine: BenchEngine) {
        self.engine = engine
    }

    var tickMicroseconds: Int64 { 10_000 }
    var isDrained: Bool { moving.isEmpty }

    func start(now: UInt64) {}

    /// Opens the moved sockets whose moment came.
    func tick(now: UInt64) {
        guard !waiting.isEmpty else { return }
        var later: [(due: UInt64, socket: BenchSocket)] = []
        for entry in waiting {
            if entry.due <= now {
                engine.reopen(entry.socket)
            } else {
                later.append(entry)
            }
        }
        waiting = later
    }

    func stopStarting() {}

    func ready(_ socket: BenchSocket, now: UInt64) {
        guard moving.remove(socket.index) != nil else { return }
        engine.metrics.moves.reconnected(now: now)
    }

    func reply(_ kind: RequestKind, on socket: BenchSocket, fields: FrameFields, now: UInt64) {}

    func push(_ kind: PushKind, on socket: BenchSocket, fields: FrameFields, now: UInt64) {
        engine.metrics.error("UNEXPECTED_PUSH")
    }

    /// A 1012 with a reconnect hint moves the socket to the next gateway; any other close is an error.
    func closed(_ socket: BenchSocket, now: UInt64) -> Bool {
        guard socket.closeCode == CloseCode.serviceRestart, let hint = socket.closeReason.flatMap(ReconnectHint.init(reason:))
        else { return false }
        engine.metrics.moves.closed(now: now)
        let current = socket.port ?? engine.configuration.port(for: socket.index)
        socket.port = engine.configuration.port(after: current)
        moving.insert(socket.index)
        let delay = UInt64(hint.delayMilliseconds(using: &random)) * 1_000_000
        waiting.append((now + delay, socket))
        return true
    }

    /// Moved sockets whose reconnect failed (the engine counted `RECONNECT_FAILED`) try the
    /// gateway after that one.
    func abandonStalled(now: UInt64, limit: UInt64) {
        let queued = Set(waiting.map(\.socket.index))
        for index in moving where !queued.contains(index) {
            let socket = engine.sockets[index]
            guard socket.state == .closed else { continue }
            engine.metrics.moves.failedReconnects += 1
            socket.port = engine.configuration.port(after: socket.port ?? engine.configuration.port(for: index))
            engine.reopen(socket)
        }
    }

    func progressText(elapsedSeconds: Double) -> String {
        "moved \(engine.metrics.moves.reconnected) of \(engine.metrics.moves.closed), \(moving.count) on their way"
    }
}
