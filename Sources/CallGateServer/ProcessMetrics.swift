import CallGateProtocol
import Foundation
import LWS
import Synchronization

/// The process metrics Prometheus' own client libraries report (CPU, memory, file descriptors,
/// start time), and `callgate_build_info`. Linux; on a system without /proc the process lines
/// are left out. Any thread.
///
/// They are read from /proc every 5 s on a thread of their own, not at the scrape: listing
/// /proc/self/fd takes 12 to 15 ms with 19,000 sockets open, which the service thread (where
/// scrapes are answered) must not spend.
enum ProcessMetrics {
    /// How often the readings are refreshed.
    static let refreshInterval: TimeInterval = 5
    /// The name the refreshing thread gives itself: its seconds are not the service thread's,
    /// whose name it would keep otherwise (`ThreadName`).
    static let threadName = "cg-proc-metrics"

    /// The latest readings; nil until the first.
    private static let latest = Mutex<Readings?>(nil)

    /// Starts the refreshing thread, once per process, the first time the metrics are asked for.
    private static let refresher: Void = {
        let thread = Thread {
            ThreadName.set(threadName)
            while true {
                Thread.sleep(forTimeInterval: refreshInterval)
                let fresh = readings()
                latest.withLock { $0 = fresh }
            }
        }
        thread.start()
    }()

    /// The lines, in the text format, with their `# HELP` and `# TYPE`.
    static func exposition() -> String {
        _ = refresher
        var process = latest.withLock { $0 }
        if process == nil {
            process = readings()
            latest.withLock { $0 = process }
        }
        var lines = [
            "# HELP callgate_build_info The gateway's release and the wire protocol it speaks; always 1.",
            "# TYPE callgate_build_info gauge",
            "callgate_build_info{version=\"\(GatewayVersion.release)\",protocol=\"\(WireEndpoint.subprotocol)\"} 1",
        ]
        if let process {
            lines += [
                "# HELP process_cpu_seconds_total Total user and system CPU time spent in seconds.",
                "# TYPE process_cpu_seconds_total counter",
                "process_cpu_seconds_total \(process.cpuSeconds)",
                "# HELP process_resident_memory_bytes Resident memory size in bytes.",
                "# TYPE process_resident_memory_bytes gauge",
                "process_resident_memory_bytes \(process.residentBytes)",
                "# HELP process_virtual_memory_bytes Virtual memory size in bytes.",
                "# TYPE process_virtual_memory_bytes gauge",
                "process_virtual_memory_bytes \(process.virtualBytes)",
                "# HELP process_open_fds Number of open file descriptors.",
                "# TYPE process_open_fds gauge",
                "process_open_fds \(process.openDescriptors)",
                "# HELP process_max_fds Maximum number of open file descriptors.",
                "# TYPE process_max_fds gauge",
                "process_max_fds \(process.maxDescriptors)",
                "# HELP process_start_time_seconds Start time of the process since unix epoch in seconds.",
                "# TYPE process_start_time_seconds gauge",
                "process_start_time_seconds \(process.startTime)",
            ]
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// What /proc says of this process now.
    struct Readings: Sendable {
        var cpuSeconds: Double
        var residentBytes: Int
        var virtualBytes: Int
        var openDescriptors: Int
        var maxDescriptors: Int
        var startTime: Double
    }

    /// Nil where /proc cannot be read.
    static func readings() -> Readings? {
        guard let stat = try? String(contentsOfFile: "/proc/self/stat", encoding: .utf8),
            let statm = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8),
            let closing = stat.range(of: ") ", options: .backwards)
        else { return nil }
        // Fields after the command name: state is field 3, so field n is at index n - 3.
        let fields = stat[closing.upperBound...].split(separator: " ")
        let pages = statm.split(separator: " ").compactMap { Int($0) }
        let ticks = Double(sysconf(Int32(_SC_CLK_TCK)))
        let pageSize = Int(sysconf(Int32(_SC_PAGESIZE)))
        guard fields.count > 19, pages.count > 1, ticks > 0, let user = Double(fields[11]), let system = Double(fields[12]),
            let started = Double(fields[19])
        else { return nil }
        var limit = rlimit()
        getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        let descriptors = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count) ?? 0
        return Readings(
            cpuSeconds: (user + system) / ticks, residentBytes: pages[1] * pageSize, virtualBytes: pages[0] * pageSize,
            openDescriptors: descriptors, maxDescriptors: Int(clamping: limit.rlim_cur), startTime: bootTime() + started / ticks)
    }

    /// When the system booted, Unix seconds (`btime` in /proc/stat); 0 when unknown.
    private static func bootTime() -> Double {
        guard let stat = try? String(contentsOfFile: "/proc/stat", encoding: .utf8) else { return 0 }
        for line in stat.split(separator: "\n") where line.hasPrefix("btime ") {
            return Double(line.dropFirst(6).trimmingCharacters(in: .whitespaces)) ?? 0
        }
        return 0
    }
}
