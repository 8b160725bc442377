/// The units of a scenario (ring pairs, groups) that are not in a call, taken in turn so every
/// unit gets its share; a unit is back in the rotation once its call is over. A plain value,
/// owned by one driver on the bench loop's thread.
struct IdleRotation {
    private var waiting: [Int]
    private var head = 0
    private let total: Int

    /// Units `0 ..< count`, all idle.
    init(count: Int) {
        waiting = Array(0..<count)
        total = count
    }

    /// How many units are in a call now.
    var busyCount: Int {
        total - (waiting.count - head)
    }

    /// The next idle unit that `isReady` accepts, taken out of the rotation; units it refuses
    /// go to the back. Nil when none is ready.
    mutating func take(where isReady: (Int) -> Bool) -> Int? {
        for _ in 0..<(waiting.count - head) {
            let unit = waiting[head]
            head += 1
            if head > 4_096 && head * 2 > waiting.count {
                waiting.removeFirst(head)
                head = 0
            }
            if isReady(unit) { return unit }
            waiting.append(unit)
        }
        return nil
    }

    /// Puts `unit` back, at the end of the turn.
    mutating func giveBack(_ unit: Int) {
        waiting.append(unit)
    }
}
