import CLibWebSockets
import Foundation

/// TLS set-up of a context through libwebsockets' OpenSSL backend. Service thread, while the
/// context is created.
extension LWSContext {
    /// The one ALPN protocol offered, server and client side. Debian's lws is built with HTTP/2,
    /// and would otherwise offer h2; the HTTP exchange and the WebSocket upgrade here are
    /// HTTP/1.1 only.
    static let alpn = "http/1.1"

    /// Fills the creation info's TLS fields from the configuration. `strings` keeps the C
    /// strings and must outlive the lws context: lws keeps the ALPN pointer, not a copy.
    func applyTLS(to info: inout lws_context_creation_info, keeping strings: CStringBag) {
        if let tls = configuration.tls {
            info.options |= UInt64(LWS_SERVER_OPTION_DO_SSL_GLOBAL_INIT)
            info.ssl_cert_filepath = strings.keep(tls.certificateFile)
            info.ssl_private_key_filepath = strings.keep(tls.privateKeyFile)
            info.ssl_options_set = cg_ssl_options_tls12_minimum()
            info.alpn = strings.keep(Self.alpn)
        }
        if let trust = configuration.clientTLS {
            info.options |= UInt64(LWS_SERVER_OPTION_DO_SSL_GLOBAL_INIT)
            info.client_ssl_ca_filepath = trust.caFile.map { strings.keep($0) }
        }
    }

    /// The `ssl_connection` flags of a client connection: none for plain ws://.
    static func sslConnectionFlags(_ tls: ClientTLS?) -> Int32 {
        guard let tls else { return 0 }
        var flags = LCCSCF_USE_SSL.rawValue
        if tls.allowSelfSigned {
            flags |= LCCSCF_ALLOW_SELFSIGNED.rawValue
        }
        return Int32(flags)
    }
}

/// The certificate a server context serves TLS with (wss:// and https:// on its one port).
///
/// libwebsockets reads both files once, on the service thread, while the context is created;
/// a missing or unreadable file makes `LWSContext.start` throw. Only TLS 1.2 and 1.3 are
/// offered: the context turns SSLv3, TLS 1.0 and TLS 1.1 off with OpenSSL options, whatever the
/// system's OpenSSL configuration allows.
public struct ServerTLS: Sendable, Equatable {
    /// PEM file with the certificate, followed by any intermediate certificates (full chain).
    public var certificateFile: String
    /// PEM file with the certificate's private key (unencrypted).
    public var privateKeyFile: String

    public init(certificateFile: String, privateKeyFile: String) {
        self.certificateFile = certificateFile
        self.privateKeyFile = privateKeyFile
    }
}

/// TLS for one client connection (wss://): the server's certificate is checked against the
/// context's `ClientTLSTrust` and against the host name the connection is made to.
public struct ClientTLS: Sendable, Equatable {
    /// Accepts a self-signed server certificate that no trusted CA vouches for. For tests and
    /// development only: anyone on the path can then impersonate the server.
    public var allowSelfSigned: Bool

    public init(allowSelfSigned: Bool = false) {
        self.allowSelfSigned = allowSelfSigned
    }

    /// The verified connection: the certificate must chain to a trusted CA and name the host.
    public static let verified = ClientTLS()
}

/// What a client context trusts when its connections use TLS (wss://).
///
/// libwebsockets 4.1 builds one OpenSSL client context per lws context, when the context is
/// created: it trusts the operating system's CA certificates, plus `caFile` when given (a PEM
/// bundle, e.g. a private CA or a self-signed test certificate). Trust is therefore a property
/// of the context; whether a connection uses TLS at all is chosen per connection with
/// `ClientTarget.tls`.
public struct ClientTLSTrust: Sendable, Equatable {
    /// Extra PEM certificates to trust, or nil for the system's CAs only.
    public var caFile: String?

    public init(caFile: String? = nil) {
        self.caFile = caFile
    }
}

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
