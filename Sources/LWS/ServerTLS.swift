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
