import Foundation

/// Standard output for `listen` and `call`: each line stamped with the local time and flushed at
/// once, so the lines show up as they happen even through a pipe.
enum ConsoleLines {
    /// Prints `line` as "HH:mm:ss line".
    @Sendable static func print(_ line: String) {
        var now = time(nil)
        var parts = tm()
        localtime_r(&now, &parts)
        let stamp = String(format: "%02d:%02d:%02d", parts.tm_hour, parts.tm_min, parts.tm_sec)
        Swift.print("\(stamp) \(line)")
        fflush(nil)
    }
}
