import Foundation

/// The gateway's resident memory, read from `/proc/<pid>/status` (VmRSS). Any thread.
public enum ServerMemory {
    /// Resident bytes of process `pid`, or nil when it cannot be read (no such process).
    public static func residentBytes(pid: Int32, procRoot: String = "/proc") -> UInt64? {
        guard let text = try? String(contentsOfFile: "\(procRoot)/\(pid)/status", encoding: .utf8) else { return nil }
        return parseResidentBytes(status: text)
    }

    /// VmRSS of a `/proc/<pid>/status` text, in bytes.
    static func parseResidentBytes(status: String) -> UInt64? {
        for line in status.split(separator: "\n") where line.hasPrefix("VmRSS:") {
            let fields = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
            guard fields.count >= 2, let kilobytes = UInt64(fields[1]) else { return nil }
            return kilobytes * 1_024
        }
        return nil
    }
}
