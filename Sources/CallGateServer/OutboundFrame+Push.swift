import CallGateProtocol
import LWS

extension OutboundFrame {
    /// A push frame numbered for one user: the shared `head` (`Push.encodedHead`) and its
    /// `,"seq":N}` tail written in place, so numbering a push for each of its users costs one
    /// frame each and no tail of its own.
    convenience init(head: [UInt8], seq: UInt64) {
        self.init(head, tailCapacity: PushFrame.maxTailCount) { PushFrame.writeTail(seq: seq, into: $0) }
    }
}
