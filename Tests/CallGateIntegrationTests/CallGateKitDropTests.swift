import CallGateKit
import CallGateProtocol
import Foundation
import Testing

/// CallGateKit's reconnect and recover over many lost connections: a device in a call whose
/// network drops 100 times at random moments, while the other side keeps sending, must hear
/// every push once, in order.
@Suite("CallGateKit over 100 lost connections")
struct CallGateKitDropTests {
    static let drops = 100

    @Test func everyPushArrivesOnceAndInOrderAcrossAHundredDrops() async throws {
        let gateway = try await TestGateway {
            $0.core.participantGracePeriod = .seconds(30)
            $0.core.maxSessionEventsPerWindow = 1_000_000
            $0.maxMessagesPerSecond = 1_000
        }
        defer { gateway.shutdown() }
        let relay = try await TCPRelay(to: gateway.port)
        defer { relay.stop() }
        let (alice, _) = try await gateway.kitDevice("alice")
        // Cut every 20 to 200 ms, the device's backoff would reach its cap at once: the cap is
        // short here to keep the run short (an app's is 15 s).
        let (bob, bobStream) = try await gateway.kitDevice("bob", url: relay.url, maxRetryDelay: .milliseconds(200))
        let heard = HeardTicks(bobStream)
        let call = try await alice.initiateCall(to: "bob")
        _ = try await bob.acceptCall(call.sessionId)
        _ = try await alice.joinSession(callToken: try await alice.generateToken(sessionId: call.sessionId).callToken)
        _ = try await bob.joinSession(callToken: try await bob.generateToken(sessionId: call.sessionId).callToken)

        let sending = Task {
            var sent = 0
            while !Task.isCancelled {
                sent += 1
                _ = try await alice.sendSessionEvent(call.sessionId, type: "tick", data: .object(["n": .number(Double(sent))]))
                try? await Task.sleep(for: .milliseconds(5))
            }
            return sent
        }
        let started = ContinuousClock.now
        var cuts = 0
        while cuts < Self.drops {
            try await Task.sleep(for: .milliseconds(Int.random(in: 20...200)))
            guard await bob.isConnected, relay.connections > 0 else { continue }
            relay.cutAll()
            await heard.noteCut()
            cuts += 1
            let deadline = ContinuousClock.now + .seconds(5)
            while await !bob.isConnected, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(5))
            }
        }
        sending.cancel()
        let sent = try await sending.value
        _ = try await alice.sendSessionEvent(call.sessionId, type: "last")
        #expect(await heard.waitForLast(), "bob's device never heard the last push")
        let elapsed = ContinuousClock.now - started
        let ticks = await heard.ticks
        let recoveries = await heard.recoveries
        let duplicates = ticks.count - Set(ticks).count
        let inOrder = ticks == Array(1...(ticks.last ?? 0))
        let (noticed, back) = await heard.delays()
        print("CallGateKit drops: \(cuts) cuts in \(elapsed); \(sent) pushes sent, \(ticks.count) heard, \(duplicates) twice,"
            + " in order: \(inOrder); recoveries \(recoveries.count), recovered \(recoveries.filter { $0 }.count);"
            + " cut to close seen p50 \(noticed.p50) max \(noticed.max); close to open p50 \(back.p50) max \(back.max)")
        #expect(cuts == Self.drops)
        #expect(recoveries.count == Self.drops)
        #expect(recoveries.allSatisfy { $0 }, "the gateway could not give back what was missed")
        #expect(duplicates == 0)
        #expect(inOrder, "pushes were lost or reordered")
        #expect(ticks.count == sent)
        await alice.close()
        await bob.close()
    }
}

/// The `tick` session events a device heard, by number, and how each recovery went.
actor HeardTicks {
    private(set) var ticks: [Int] = []
    private(set) var recoveries: [Bool] = []
    private var sawLast = false
    private var cuts: [ContinuousClock.Instant] = []
    private var closes: [ContinuousClock.Instant] = []
    private var opens: [ContinuousClock.Instant] = []

    init(_ events: AsyncStream<CallGateEvent>) {
        Task { [weak self] in
            for await event in events {
                guard let self else { return }
                await self.take(event)
            }
        }
    }

    private func take(_ event: CallGateEvent) {
        switch event {
        case .push(.sessionEvent(_, "tick", .object(let data)?, _)):
            if case .number(let n)? = data["n"] { ticks.append(Int(n)) }
        case .push(.sessionEvent(_, "last", _, _)):
            sawLast = true
        case .recovered(let report):
            recoveries.append(report.recovered)
        case .closed:
            closes.append(.now)
        case .open:
            opens.append(.now)
        default:
            break
        }
    }

    func noteCut() {
        cuts.append(.now)
    }

    /// How long the device took to see each cut, and to connect again after seeing it.
    func delays() -> (noticed: Spread, back: Spread) {
        let noticed = zip(cuts, closes).map { $1 - $0 }
        let back = zip(closes, opens.dropFirst()).map { $1 - $0 }
        return (Spread(noticed), Spread(back))
    }

    /// The median and the largest of some durations.
    struct Spread {
        let p50: Duration
        let max: Duration

        init(_ durations: [Duration]) {
            let sorted = durations.sorted()
            p50 = sorted.isEmpty ? .zero : sorted[sorted.count / 2]
            max = sorted.last ?? .zero
        }
    }

    /// Waits, at most 20 s, for the `last` event.
    func waitForLast() async -> Bool {
        let deadline = ContinuousClock.now + .seconds(20)
        while !sawLast, ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(10))
        }
        return sawLast
    }
}
