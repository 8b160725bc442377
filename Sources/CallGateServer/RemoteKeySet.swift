import Foundation
import Logging
import Synchronization

/// The keys the JWKS URL publishes, kept fresh: read every refresh interval, and again when a
/// token names a `kid` the gateway does not hold, at most once per cooldown (a read already
/// running is waited for, never doubled). A read that fails keeps the keys there were, so an
/// outage of the key server refuses no token it had published a key for; a key the URL stops
/// publishing stops verifying at the next read that succeeds.
///
/// Sendable: verifications on any thread read the keys under a lock, and the reads run as tasks
/// of their own.
final class RemoteKeySet: Sendable {
    private let fetcher: JWKSFetcher
    /// The kids of the keys from files: a published key with one of them refuses the set.
    private let reservedKIDs: Set<String>
    private let cooldown: Duration
    private let logger: Logger
    private let state: Mutex<State>
    /// Reads the URL every refresh interval, until ``stop()``.
    private let refresher: Mutex<Task<Void, Never>?>

    private struct State {
        var keys: [String: TokenKey] = [:]
        /// When the last read started.
        var lastRead: ContinuousClock.Instant?
        /// The read running now, which every caller waits for.
        var running: Task<Bool, Never>?
    }

    private init(fetcher: JWKSFetcher, reservedKIDs: Set<String>, cooldown: Duration, logger: Logger) {
        self.fetcher = fetcher
        self.reservedKIDs = reservedKIDs
        self.cooldown = cooldown
        self.logger = logger
        state = Mutex(State())
        refresher = Mutex(nil)
    }

    /// Reads the URL of `configuration` once, and starts reading it every refresh interval.
    /// Throws when that first read fails: the gateway does not start without its keys.
    static func start(
        _ configuration: TokenKeyConfiguration, url: String, reservedKIDs: Set<String>, logger: Logger
    ) async throws(TokenKeyError) -> RemoteKeySet {
        let keys = RemoteKeySet(
            fetcher: JWKSFetcher(url: url, timeout: configuration.jwksTimeout), reservedKIDs: reservedKIDs,
            cooldown: configuration.jwksCooldown, logger: logger)
        keys.state.withLock { $0.lastRead = .now }
        do {
            try keys.replace(with: try await keys.fetcher.fetch())
        } catch {
            keys.fetcher.shutdown()
            throw error
        }
        let interval = configuration.jwksRefreshInterval
        keys.refresher.withLock { refresher in
            refresher = Task { [weak keys] in
                while !Task.isCancelled {
                    try? await Task.sleep(for: interval)
                    guard !Task.isCancelled, let keys else { return }
                    _ = await keys.read(unlessWithinCooldown: false)
                }
            }
        }
        return keys
    }

    /// The published key `kid`, nil when there is none.
    subscript(kid: String) -> TokenKey? {
        state.withLock { $0.keys[kid] }
    }

    /// Every published key.
    var all: [TokenKey] {
        state.withLock { Array($0.keys.values) }
    }

    /// Reads the URL again for a token whose `kid` no key has, unless the last read started
    /// within the cooldown; waits for a read already running. Returns whether a read ended with
    /// new keys (so a second look may find the kid).
    func readForUnknownKey() async -> Bool {
        await read(unlessWithinCooldown: true)
    }

    /// Stops the periodic reads and closes the HTTP client.
    func stop() {
        refresher.withLock { $0?.cancel() }
        fetcher.shutdown()
    }

    /// Joins the running read, or starts one (unless `unlessWithinCooldown` and the last started
    /// within the cooldown); returns whether it replaced the keys.
    private func read(unlessWithinCooldown: Bool) async -> Bool {
        let read: Task<Bool, Never>? = state.withLock { state in
            if let running = state.running { return running }
            if unlessWithinCooldown, let last = state.lastRead, ContinuousClock.now - last < cooldown { return nil }
            state.lastRead = .now
            let started = Task { await self.readNow() }
            state.running = started
            return started
        }
        return await read?.value ?? false
    }

    /// Reads the URL and takes what it publishes; on failure logs why and keeps the keys.
    private func readNow() async -> Bool {
        defer { state.withLock { $0.running = nil } }
        do {
            try replace(with: try await fetcher.fetch())
            return true
        } catch {
            logger.warning("the JWKS URL could not be read; its keys so far stay", metadata: ["error": "\(error)"])
            return false
        }
    }

    /// Takes `published` as the keys, unless one of them has the kid of a key from a file.
    private func replace(with published: JWKSDocument.Keys) throws(TokenKeyError) {
        if let clash = published.keys.first(where: { reservedKIDs.contains($0.kid) }) {
            throw TokenKeyError("\(fetcher.url): the key \(clash.kid) has the kid of a key from a file")
        }
        let keys = Dictionary(uniqueKeysWithValues: published.keys.map { ($0.kid, $0) })
        let before = state.withLock { state in
            defer { state.keys = keys }
            return Set(state.keys.keys)
        }
        guard before != Set(keys.keys) else { return }
        logger.info(
            "token keys read from the JWKS URL",
            metadata: [
                "url": "\(fetcher.url)", "kids": "\(keys.keys.sorted().joined(separator: ","))",
                "skipped": "\(published.skipped.joined(separator: "; "))",
            ])
    }
}
