import CallGateProtocol
import Dispatch
import Foundation
import LWS

/// Runs one bench scenario end to end: checks the limits, mints the tokens, creates the groups,
/// connects every socket on one libwebsockets client loop, runs the scenario, and measures.
public enum BenchRunner {
    /// Runs `configuration`. `progress` gets a one-line status about once a second (from the
    /// bench loop's thread). Throws a one-line `BenchError` when the run could not happen: bad
    /// options, descriptor limit, server unreachable, tokens refused, groups not created.
    public static func run(
        _ configuration: BenchConfiguration, progress: (@Sendable (String) -> Void)? = nil
    ) async throws(BenchError) -> BenchResult {
        try configuration.validate()
        let used = configuration.usedSockets
        try DescriptorLimit.ensure(forSockets: used)
        let plan = try SourceAddressPlan(
            sockets: used, addresses: configuration.addresses, host: configuration.host,
            ephemeralPorts: SourceAddressPlan.ephemeralPortCount())
        if let pid = configuration.serverPID, ServerMemory.residentBytes(pid: pid) == nil {
            throw BenchError("--server-pid \(pid): cannot read /proc/\(pid)/status (no such process?)")
        }
        try await offload { () throws(BenchError) in
            _ = try TCPConnection(host: configuration.host, port: configuration.port)
        }
        let tokens = try await mintTokens(count: used, secret: configuration.jwtSecret)
        if configuration.scenario == .group {
            try await createGroups(configuration)
        }
        let rssBefore = configuration.serverPID.flatMap { ServerMemory.residentBytes(pid: $0) }
        let sockets = (0..<used).map { BenchSocket(index: $0, token: tokens[$0], sourceAddress: plan.address(for: $0)) }
        let context = LWSContext(configuration: ContextConfiguration(listen: nil, protocolName: WireEndpoint.subprotocol))
        let engine = BenchEngine(
            context: context, configuration: configuration, sockets: sockets, progress: progress,
            makeDriver: { makeDriver(for: configuration, engine: $0) })
        do {
            try context.start(webSocketDelegate: engine)
        } catch {
            throw BenchError("cannot start the client loop: \(error)")
        }
        let outcome = await withCheckedContinuation { (continuation: CheckedContinuation<EngineOutcome, Never>) in
            context.post {
                engine.start { continuation.resume(returning: $0) }
            }
        }
        let rssAfter = configuration.serverPID.flatMap { ServerMemory.residentBytes(pid: $0) }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            context.post {
                engine.closeAll { continuation.resume() }
            }
        }
        try await offload { () throws(BenchError) in
            context.stop()
        }
        if let failure = outcome.failure { throw failure }
        var server: ServerMemoryReport?
        if let rssBefore, let rssAfter {
            server = ServerMemoryReport(rssBeforeBytes: rssBefore, rssAfterBytes: rssAfter, sockets: outcome.snapshot.counts.connected)
        }
        return BenchResult(configuration: configuration, addresses: plan.addresses.count, outcome: outcome, server: server)
    }

    static func makeDriver(for configuration: BenchConfiguration, engine: BenchEngine) -> any ScenarioDriver {
        let used = configuration.usedSockets
        switch configuration.scenario {
        case .idle:
            return IdleDriver(engine: engine)
        case .drain:
            return DrainDriver(engine: engine)
        case .ring:
            return RingDriver(engine: engine, firstSocket: 0, pairCount: used / 2, rate: configuration.rate)
        case .group:
            return GroupDriver(
                engine: engine, groupCount: used / configuration.groupSize, groupSize: configuration.groupSize,
                rate: configuration.rate)
        case .churn:
            return ChurnDriver(
                engine: engine, stableSockets: ChurnDriver.stableSockets(of: used), totalSockets: used,
                rate: configuration.rate)
        }
    }

    private static func mintTokens(count: Int, secret: String) async throws(BenchError) -> [String] {
        let minter = try await TokenMinter(secret: secret)
        do {
            return try await minter.tokens(count: count)
        } catch {
            throw BenchError("cannot sign connection tokens: \(error)")
        }
    }

    /// `bench-g<i>` with members u(i*G) ... u(i*G+G-1), through the admin API.
    private static func createGroups(_ configuration: BenchConfiguration) async throws(BenchError) {
        let client = AdminClient(host: configuration.host, port: configuration.port, adminKey: configuration.adminKey ?? "")
        let size = configuration.groupSize
        try await offload { () throws(BenchError) in
            for group in 0..<(configuration.usedSockets / size) {
                let members = (group * size..<(group + 1) * size).map(BenchConfiguration.uid)
                try client.putGroup(BenchConfiguration.groupID(group), name: "bench group \(group)", members: members)
            }
        }
    }

    /// Runs blocking work (sockets, waiting for a thread) off the cooperative pool.
    private static func offload<T: Sendable>(_ work: @escaping @Sendable () throws(BenchError) -> T) async throws(BenchError) -> T {
        let result = await withCheckedContinuation { (continuation: CheckedContinuation<Result<T, BenchError>, Never>) in
            DispatchQueue.global().async {
                do throws(BenchError) {
                    continuation.resume(returning: .success(try work()))
                } catch {
                    continuation.resume(returning: .failure(error))
                }
            }
        }
        return try result.get()
    }
}

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

/// Nanoseconds of `CLOCK_MONOTONIC`: cheap, never jumps, comparable across threads of one process.
public enum MonotonicClock {
    /// Now, in nanoseconds since an arbitrary fixed point.
    public static func now() -> UInt64 {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
    }
}
