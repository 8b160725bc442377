import Foundation
import LWS

/// A server delegate for the write-path tests. "burst N" sends N numbered frames of mixed sizes
/// (up to 300 KB, more than any socket buffer here) to the asker; "broadcast N" sends the next N
/// of one numbered series of frames of up to 60 KB to every open socket (the test client takes
/// messages up to 64 KiB); "close-me"
/// closes with 4001 after what is queued. It keeps a weak reference to every frame it sent, and
/// what it saw of each socket, for the test thread to read.
final class BurstHandler: WebSocketDelegate, @unchecked Sendable {
    /// The payload of frame `index` of a burst: its number, a colon, then letters that depend
    /// on the number and the position, `size` bytes in all.
    static func payload(_ index: Int, size: Int) -> [UInt8] {
        var bytes = Array("\(index):".utf8)
        bytes.reserveCapacity(size)
        while bytes.count < size {
            bytes.append(UInt8(ascii: "a") + UInt8((index &+ bytes.count) % 26))
        }
        return bytes
    }

    static let burstSizes = [300_000, 40, 70_000, 1_500, 200_000, 9]
    static let broadcastSizes = [60_000, 40, 20_000, 1_500, 50_000, 9]

    static func burstPayload(_ index: Int) -> [UInt8] {
        payload(index, size: burstSizes[index % burstSizes.count])
    }

    static func broadcastPayload(_ index: Int) -> [UInt8] {
        payload(index, size: broadcastSizes[index % broadcastSizes.count])
    }

    private struct WeakFrame {
        weak var frame: OutboundFrame?
    }

    private let lock = NSLock()
    /// Open sockets; service thread only.
    private var open: [UInt64: WebSocketConnection] = [:]
    /// The number of the next broadcast frame; service thread only.
    private var broadcastNext = 0
    private var sent: [WeakFrame] = []
    private var queuedAfterSending: [UInt64: Int] = [:]
    private var closeCodes: [UInt64: UInt16] = [:]
    private var closedIDs: [UInt64: Int] = [:]
    private var openedIDs: [UInt64] = []

    func webSocketDidOpen(_ connection: WebSocketConnection) {
        open[connection.id] = connection
        locked { openedIDs.append(connection.id) }
    }

    func webSocket(_ connection: WebSocketConnection, didReceive message: [UInt8], binary: Bool) {
        let words = String(decoding: message, as: UTF8.self).split(separator: " ")
        switch (words.first, words.count > 1 ? Int(words[1]) : nil) {
        case ("burst", let count?):
            for index in 0..<count {
                send(OutboundFrame(Self.burstPayload(index)), to: [connection])
            }
            note(after: [connection])
        case ("broadcast", let count?):
            let everyone = open.keys.sorted().compactMap { open[$0] }
            for index in broadcastNext..<broadcastNext + count {
                send(OutboundFrame(Self.broadcastPayload(index)), to: everyone)
            }
            broadcastNext += count
            note(after: everyone)
        case ("close-me", _):
            connection.close(code: 4001, reason: "asked to")
        default:
            break
        }
    }

    func webSocketDidClose(_ connection: WebSocketConnection, error: String?) {
        open[connection.id] = nil
        locked { closedIDs[connection.id, default: 0] += 1 }
    }

    private func send(_ frame: OutboundFrame, to connections: [WebSocketConnection]) {
        locked { sent.append(WeakFrame(frame: frame)) }
        for connection in connections {
            connection.send(frame)
        }
    }

    private func note(after connections: [WebSocketConnection]) {
        locked {
            for connection in connections {
                queuedAfterSending[connection.id] = connection.queuedFrames
                if let code = connection.localCloseCode {
                    closeCodes[connection.id] = code
                }
            }
        }
    }

    private func locked<T>(_ body: () -> T) -> T {
        lock.lock()
        defer { lock.unlock() }
        return body()
    }

    /// The ids of the sockets opened so far, in order.
    var opened: [UInt64] { locked { openedIDs } }
    /// How many frames waited in the queue of socket `id` once its last burst or broadcast was
    /// handed over; nil before that.
    func queued(_ id: UInt64) -> Int? { locked { queuedAfterSending[id] } }
    /// The code the server closed socket `id` with during a burst or broadcast, if it did.
    func closeCode(_ id: UInt64) -> UInt16? { locked { closeCodes[id] } }
    /// Whether the server heard socket `id` close.
    func closed(_ id: UInt64) -> Bool { closeCount(id) > 0 }
    /// How many times the server heard socket `id` close (once, whatever ended it).
    func closeCount(_ id: UInt64) -> Int { locked { closedIDs[id, default: 0] } }
    /// How many frames the handler sent are still held by anyone.
    var framesAlive: Int { locked { sent.count { $0.frame != nil } } }
}
