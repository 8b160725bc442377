import Foundation
import Synchronization

/// Keeps a copy of every frame a client sends and receives, in order; for protocol conformance checks.
public final class FrameRecorder: Sendable {
    /// Which way a frame went.
    public enum Direction: Sendable {
        case sent
        case received
    }

    private let frames = Mutex<[(Direction, Data)]>([])

    public init() {}

    /// Every frame so far.
    public var recorded: [(direction: Direction, frame: Data)] {
        frames.withLock { $0.map { (direction: $0.0, frame: $0.1) } }
    }

    func record(_ direction: Direction, _ frame: Data) {
        frames.withLock { $0.append((direction, frame)) }
    }
}
