import CallGateProtocol

/// The steps of one call or meeting for its timeline (`GET /v3.0/calls/{sessionId}/timeline`),
/// bounded so that no call, however big its group or however long its ring, grows its log
/// entry without end: past `maxSteps` the earliest `keptFirst` stay, the latest fill the rest,
/// and those dropped between are counted in `omitted`.
///
/// Kept in the call's record (`CallLogRecord.steps`), written with each save of it: a step that
/// changes nothing else (a device confirming the ring) reaches the store with the call's next
/// change. Service thread (in the Core), any thread as a value.
public struct CallSteps: Hashable, Sendable {
    /// The most steps kept for one call.
    public static let maxSteps = 100
    /// How many of the earliest steps are always kept.
    public static let keptFirst = 20

    /// The steps kept, oldest first.
    public private(set) var steps: [CallStep]
    /// How many steps were dropped to stay within `maxSteps`.
    public private(set) var omitted: Int

    /// Steps as a store read them back: cut to the bound should the stored ones pass it.
    public init(_ steps: [CallStep] = [], omitted: Int = 0) {
        self.steps = []
        self.omitted = max(0, omitted)
        for step in steps {
            add(step)
        }
    }

    /// Adds `step` as the latest, dropping the oldest step after the first `keptFirst` when
    /// the call holds `maxSteps` already.
    public mutating func add(_ step: CallStep) {
        if steps.count >= Self.maxSteps {
            steps.remove(at: Self.keptFirst)
            omitted += 1
        }
        steps.append(step)
    }
}
