import CallGateCore

/// Session ids from a script, then `s1`, `s2`, ... so tests can name calls.
final class ScriptedSessionIDs: SessionIDGenerator {
    private var script: [String]
    private var counter = 0
    private(set) var drawn = 0

    init(_ script: [String] = []) {
        self.script = script
    }

    func makeSessionID() -> String {
        drawn += 1
        if !script.isEmpty {
            return script.removeFirst()
        }
        counter += 1
        return "s\(counter)"
    }
}
