import CallGateProtocol
import Foundation

/// The steps of a call as the stores keep them, in a column of their own beside the record:
/// `{"omitted":N,"steps":[...]}`, each step with the keys of `CallStep`'s Codable form (a nil
/// field left out).
///
/// Written by `JSONWriter`, as the call's participants are, because every save of a call writes
/// its steps again and Foundation's JSONEncoder costs microseconds per step (a 100-member group
/// ring has a hundred); read back with JSONDecoder, which only timelines and restarts pay for.
/// Any thread.
extension CallSteps {
    /// The steps as JSON text; nil when there is none (the column stays NULL).
    public var json: String? {
        guard !steps.isEmpty || omitted > 0 else { return nil }
        var json = JSONWriter(capacity: steps.count * 80 + 32)
        json.raw(#"{"omitted":"#)
        json.integer(omitted)
        json.raw(#","steps":["#)
        for (index, step) in steps.enumerated() {
            if index > 0 { json.raw(",") }
            json.raw(#"{"at":"#)
            json.integer(step.at)
            json.raw(#","step":"#)
            json.string(step.step.rawValue)
            Self.write(step.uid, key: #","uid":"#, to: &json)
            Self.write(step.device, key: #","device":"#, to: &json)
            if let devices = step.devices {
                json.raw(#","devices":"#)
                json.integer(devices)
            }
            if let wakeUp = step.wakeUp {
                json.raw(#","wakeUp":"#)
                json.bool(wakeUp)
            }
            Self.write(step.status?.rawValue, key: #","status":"#, to: &json)
            Self.write(step.reason, key: #","reason":"#, to: &json)
            Self.write(step.rid, key: #","rid":"#, to: &json)
            json.raw("}")
        }
        json.raw("]}")
        return String(decoding: json.bytes, as: UTF8.self)
    }

    /// The steps in `json` as `json` writes them; none for nil. A step this version cannot read
    /// (a kind a later version added, written by a newer node of the cluster) is left out and
    /// counted as omitted, so that the call it belongs to still reads. Throws when the text is
    /// not that shape at all.
    public init(json: String?) throws {
        guard let json else {
            self.init()
            return
        }
        let stored = try JSONDecoder().decode(Stored.self, from: Data(json.utf8))
        let steps = stored.steps.compactMap(\.step)
        self.init(steps, omitted: stored.omitted + stored.steps.count - steps.count)
    }

    private struct Stored: Decodable {
        var omitted: Int
        var steps: [Readable]
    }

    /// One stored step, nil when this version cannot read it.
    private struct Readable: Decodable {
        var step: CallStep?

        init(from decoder: any Decoder) throws {
            step = try? CallStep(from: decoder)
        }
    }

    private static func write(_ value: String?, key: StaticString, to json: inout JSONWriter) {
        guard let value else { return }
        json.raw(key)
        json.string(value)
    }
}
