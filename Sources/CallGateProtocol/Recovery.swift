/// `connect`'s `recover`: the last push a device saw, and the connection it saw it on.
///
/// Bounds, each refused with `ERR_BAD_REQUEST` naming the field: `epoch` a string of at most
/// `maxEpochLength` bytes; `seq` a whole number from 0 to 2^53 - 1; `connectionId`, when
/// present, the `connectionId` of an earlier connect result (decimal digits, a 64-bit number).
public struct RecoverParams: Codable, Hashable, Sendable {
    /// The longest epoch a client may send, in UTF-8 bytes; the server's are far shorter.
    public static let maxEpochLength = 64
    /// The largest seq a client may send: JSON numbers are exact up to 2^53.
    public static let maxSeq: UInt64 = (1 << 53) - 1

    /// The epoch of the sequence `seq` belongs to, from a connect result or a push's sequence.
    public var epoch: String
    /// The last push seen (its `seq`), or the connect result's `seq` when none came after it.
    public var seq: UInt64
    /// The `connectionId` of the connection this device had: pushes that connection caused
    /// (and was answered for instead) are not sent again, and the sessions it had joined are
    /// taken over. Nil when unknown.
    public var connectionId: String?

    /// Makes recover params.
    public init(epoch: String, seq: UInt64, connectionId: String? = nil) {
        self.epoch = epoch
        self.seq = seq
        self.connectionId = connectionId
    }

    /// Reads and bounds the fields of a `recover` object.
    init(reading data: FrameFieldReader) throws(FrameDecodingError) {
        epoch = try data.string("epoch")
        guard epoch.utf8.count <= Self.maxEpochLength else {
            throw data.problem("epoch", "at most \(Self.maxEpochLength) bytes")
        }
        guard let seq = try? data.optionalInteger("seq"), let whole = UInt64(exactly: seq), whole <= Self.maxSeq else {
            throw data.problem("seq", "expected a whole number from 0 to \(Self.maxSeq)")
        }
        self.seq = whole
        connectionId = switch data.fields["connectionId"] {
        case nil, .null?: nil
        case .string(let text)? where UInt64(text) != nil && text.utf8.allSatisfy({ (0x30...0x39).contains($0) }): text
        default: throw data.problem("connectionId", "expected the connectionId of an earlier connect result")
        }
    }
}

/// The `recovery` of a connect result that asked for it.
public struct Recovery: Codable, Hashable, Sendable {
    /// The epoch the device's sequence is in now: the one it sent when `recovered`, else the
    /// current one (the device recovers from the result's `seq` next time).
    public var epoch: String
    /// Whether every push after the device's `seq` is sent, right after this reply.
    public var recovered: Bool
    /// How many pushes follow this reply, in order, with their original `seq`; 0 when not
    /// `recovered`.
    public var missed: Int

    /// Makes a recovery.
    public init(epoch: String, recovered: Bool, missed: Int) {
        self.epoch = epoch
        self.recovered = recovered
        self.missed = missed
    }
}
