import CallGateProtocol
import Foundation

/// The steps of a call as the stores keep them, in a column of their own beside the record:
/// `{"omitted":N,"steps":[...]}`, each step with the keys of `CallStep`'s Codable form (a nil
/// field left out), but for a run of `rung` steps of one millisecond (a group ringing its
/// members), kept as one element `{"at","step":"rung","users":[...],"devices":[...],"wakeUp":[...]}`.
///
/// Written by `JSONWriter`, as the call's participants are, because every save of a call writes
/// its steps again: Foundation's JSONEncoder costs microseconds per step, and a 100-member group
/// ring has a hundred, which as objects would take two more pages of the row at every save.
/// Read back with JSONDecoder, which only timelines and restarts pay for. Any thread.
extension CallSteps {
    /// The steps as JSON text; nil when there is none (the column stays NULL).
    public var json: String? {
        guard !steps.isEmpty || omitted > 0 else { return nil }
        var json = JSONWriter(capacity: steps.count * 40 + 32)
        json.raw(#"{"omitted":"#)
        json.integer(omitted)
        json.raw(#","steps":["#)
        var index = 0
        while index < steps.count {
            if index > 0 { json.raw(",") }
            let run = Self.rungRun(in: steps, from: index)
            if run.count > 1 {
                Self.write(rungs: run, to: &json)
            } else {
                Self.write(steps[index], to: &json)
            }
            index += max(1, run.count)
        }
        json.raw("]}")
        return String(decoding: json.bytes, as: UTF8.self)
    }

    /// The steps in `json` as `json` writes them; none for nil. A step this version cannot read
    /// (a kind a later version added, written by a newer node of the cluster) is left out and
    /// counted as omitted, and text that is not that shape at all reads as no steps: the call it
    /// belongs to still reads, resumes and is taken over, whatever its timeline holds.
    public init(json: String?) {
        guard let json, let stored = try? JSONDecoder().decode(Stored.self, from: Data(json.utf8)) else {
            self.init()
            return
        }
        let steps = stored.steps.flatMap { $0.steps ?? [] }
        self.init(steps, omitted: stored.omitted + stored.steps.filter { $0.steps == nil }.count)
    }

    private struct Stored: Decodable {
        var omitted: Int
        var steps: [Element]
    }

    /// One stored element: a step, or a run of `rung` steps; nil when this version cannot read it.
    private struct Element: Decodable {
        var steps: [CallStep]?

        private struct Run: Decodable {
            var at: Int64
            var step: CallStepKind
            var users: [String]
            var devices: [Int]
            var wakeUp: [Bool]
        }

        init(from decoder: any Decoder) throws {
            if let run = try? Run(from: decoder), run.step == .rung, run.devices.count == run.users.count,
               run.wakeUp.count == run.users.count {
                steps = run.users.indices.map { index in
                    CallStep(at: run.at, step: .rung, uid: run.users[index], devices: run.devices[index], wakeUp: run.wakeUp[index])
                }
            } else {
                steps = (try? CallStep(from: decoder)).map { [$0] }
            }
        }
    }

    /// The `rung` steps from `start` on that share its millisecond and have nothing but a uid,
    /// a device count and a wake-up flag: empty when the step at `start` is not one.
    private static func rungRun(in steps: [CallStep], from start: Int) -> ArraySlice<CallStep> {
        var end = start
        while end < steps.count, isPlainRung(steps[end]), steps[end].at == steps[start].at {
            end += 1
        }
        return steps[start..<end]
    }

    private static func isPlainRung(_ step: CallStep) -> Bool {
        step.step == .rung && step.uid != nil && step.devices != nil && step.wakeUp != nil && step.device == nil
            && step.status == nil && step.reason == nil && step.serverReason == nil && step.rid == nil && step.event == nil && step.endpoint == nil
            && step.attempt == nil && step.result == nil && step.httpStatus == nil
    }

    private static func write(rungs: ArraySlice<CallStep>, to json: inout JSONWriter) {
        json.raw(#"{"at":"#)
        json.integer(rungs.first?.at ?? 0)
        json.raw(#","step":"rung","users":["#)
        for (index, step) in rungs.enumerated() {
            if index > 0 { json.raw(",") }
            json.string(step.uid ?? "")
        }
        json.raw(#"],"devices":["#)
        for (index, step) in rungs.enumerated() {
            if index > 0 { json.raw(",") }
            json.integer(step.devices ?? 0)
        }
        json.raw(#"],"wakeUp":["#)
        for (index, step) in rungs.enumerated() {
            if index > 0 { json.raw(",") }
            json.bool(step.wakeUp ?? false)
        }
        json.raw("]}")
    }

    private static func write(_ step: CallStep, to json: inout JSONWriter) {
        json.raw(#"{"at":"#)
        json.integer(step.at)
        json.raw(#","step":"#)
        json.string(step.step.rawValue)
        write(step.uid, key: #","uid":"#, to: &json)
        write(step.device, key: #","device":"#, to: &json)
        if let devices = step.devices {
            json.raw(#","devices":"#)
            json.integer(devices)
        }
        if let wakeUp = step.wakeUp {
            json.raw(#","wakeUp":"#)
            json.bool(wakeUp)
        }
        write(step.status?.rawValue, key: #","status":"#, to: &json)
        write(step.reason, key: #","reason":"#, to: &json)
        write(step.serverReason, key: #","serverReason":"#, to: &json)
        write(step.rid, key: #","rid":"#, to: &json)
        json.raw("}")
    }

    private static func write(_ value: String?, key: StaticString, to json: inout JSONWriter) {
        guard let value else { return }
        json.raw(key)
        json.string(value)
    }
}
