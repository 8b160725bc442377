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
