import CLibWebSockets

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
