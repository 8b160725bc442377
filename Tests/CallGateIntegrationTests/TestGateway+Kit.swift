import CallGateKit
import CallGateProtocol
import Foundation

/// Devices on CallGateKit, the SDK apps ship, connected to a test gateway.
extension TestGateway {
    /// The gateway's WebSocket endpoint.
    var url: URL {
        URL(string: "ws://127.0.0.1:\(port)/ws")!
    }

    /// A CallGateKit device of `uid`, connected through `url` (default: straight to the gateway),
    /// with its events from before it connected. Its first token lives `ttl` seconds; with
    /// `refreshes`, the device fetches new ones (an hour each) from this gateway's secret.
    /// Reconnects begin after `firstRetryDelay` and wait at most `maxRetryDelay` (shorter than
    /// an app's, to keep tests short).
    func kitDevice(
        _ uid: String, url: URL? = nil, ttl: Int = 3600, refreshes: Bool = true, confirmsRinging: Bool = true,
        firstRetryDelay: Duration = .milliseconds(100), maxRetryDelay: Duration = .seconds(1)
    ) async throws -> (CallGateConnection, AsyncStream<CallGateEvent>) {
        var fetchToken: (@Sendable () async throws -> String)?
        if refreshes {
            let tokens = self.tokens
            fetchToken = { @Sendable in try await tokens.mint(user: User(uid: uid, name: uid.capitalized), ttl: 3600).token }
        }
        let configuration = CallGateConfiguration(
            url: url ?? self.url, token: try await token(uid, ttl: ttl), fetchToken: fetchToken, confirmsRinging: confirmsRinging,
            firstRetryDelay: firstRetryDelay, maxRetryDelay: maxRetryDelay)
        let device = CallGateConnection(configuration: configuration)
        let events = await device.events()
        try await device.connect()
        return (device, events)
    }
}

/// A CallGateKit device's events as a test reads them: kept as they come, taken in order.
actor KitEvents {
    private var kept: [CallGateEvent] = []

    init(_ events: AsyncStream<CallGateEvent>) {
        Task { [weak self] in
            for await event in events {
                guard let self else { return }
                await self.keep(event)
            }
        }
    }

    private func keep(_ event: CallGateEvent) {
        kept.append(event)
    }

    /// The next event that `matches`, dropping the others before it, waiting at most `limit`;
    /// nil past it.
    func next(within limit: Duration = .seconds(10), where matches: @Sendable (CallGateEvent) -> Bool = { _ in true }) async
        -> CallGateEvent?
    {
        let deadline = ContinuousClock.now + limit
        while true {
            while !kept.isEmpty {
                let event = kept.removeFirst()
                if matches(event) { return event }
            }
            guard ContinuousClock.now < deadline else { return nil }
            try? await Task.sleep(for: .milliseconds(10))
        }
    }

    /// The next push that `matches`, dropping other events before it.
    func push(within limit: Duration = .seconds(10), where matches: @Sendable (Push) -> Bool = { _ in true }) async -> Push? {
        let event = await next(within: limit) { event in
            if case .push(let push) = event { return matches(push) }
            return false
        }
        if case .push(let push)? = event { return push }
        return nil
    }
}
