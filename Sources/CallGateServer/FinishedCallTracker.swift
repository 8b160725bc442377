import CallGateCore
import CallGateProtocol

/// Picks, out of the Core's call log changes, the moments rung calls reach their final status,
/// once per call however often the call is saved again afterwards.
///
/// A call counts when it is first seen terminal, either after being seen open or as a call
/// newer than any seen before (auto-busy ends a call in the op that creates it). Call ids only
/// grow with creation and every new call is in the changes of the op that created it, so a
/// terminal call with an id at or below the highest seen, and not open, was counted already.
/// Memory stays bounded by the open calls. Meetings are not rung calls and are left out.
/// Service thread only.
struct FinishedCallTracker {
    private var open: Set<Int64>
    private var highestSeen: Int64

    /// Starts from what a previous run left: its open calls and the highest call id it used.
    init(openCalls: [CallLogRecord] = [], lastCallID: Int64 = 0) {
        open = Set(openCalls.filter { $0.callCategory == .call }.map(\.id))
        highestSeen = lastCallID
    }

    /// Calls `finished` with the final status of every call in `changes` that just finished.
    mutating func observe(_ changes: [CallLogRecord], finished: (CallStatus) -> Void) {
        for record in changes where record.callCategory == .call {
            let isNew = record.id > highestSeen
            highestSeen = max(highestSeen, record.id)
            if record.isOpen {
                open.insert(record.id)
            } else if open.remove(record.id) != nil || isNew {
                finished(record.callStatus)
            }
        }
    }
}
