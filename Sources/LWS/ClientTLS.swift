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
