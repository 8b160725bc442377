import Foundation

/// Keeps client TLS handshakes and the creation of TLS contexts apart, within one process.
///
/// libwebsockets 4.1 takes fresh OpenSSL ex-data indexes every time a context initialises TLS
/// (`LWS_SERVER_OPTION_DO_SSL_GLOBAL_INIT`) and keeps them in one process-wide variable. A client
/// handshake stores its connection under the index of the moment and its certificate check looks
/// it up under the index of a later moment: when another context was created in between, the
/// lookup fails ("can't get wsi from ssl privdata") and the handshake with it. Measured here: 15
/// of 200 handshakes failed while other contexts were being created. So a TLS context is created
/// only while no client handshake is in flight, and new handshakes wait while one is created
/// (lws 4.3 takes the indexes once per process, which makes this unnecessary there).
///
/// Any thread. Creation waits for in-flight handshakes, which lws ends within its timeout.
final class TLSIndexGate: @unchecked Sendable {
    static let shared = TLSIndexGate()

    private let condition = NSCondition()
    private var handshakes = 0
    private var creating = false

    /// Runs `create` once no client handshake is in flight, holding new ones back meanwhile.
    func creatingContext<Result>(_ create: () -> Result) -> Result {
        condition.lock()
        while creating || handshakes > 0 {
            condition.wait()
        }
        creating = true
        condition.unlock()
        defer {
            condition.lock()
            creating = false
            condition.broadcast()
            condition.unlock()
        }
        return create()
    }

    /// A client handshake starts; waits while a TLS context is being created.
    func beginHandshake() {
        condition.lock()
        while creating {
            condition.wait()
        }
        handshakes += 1
        condition.unlock()
    }

    /// A client handshake is over: it succeeded, failed, or its socket went away.
    func endHandshake() {
        condition.lock()
        handshakes -= 1
        condition.broadcast()
        condition.unlock()
    }
}
