import ArgumentParser
import CallGateServer
import Foundation
import LWS

/// `serve`'s options for running at the edge: direct TLS and trusted reverse proxies.
extension ServeCommand {
    /// Reads `--tls-cert`/`--tls-key` and `--trusted-proxy` (or their `CALLGATE_*` variables)
    /// into `configuration`. Throws a validation error naming the bad value: one of the two TLS
    /// files without the other, an unreadable file, or an entry that is not a CIDR.
    func applyEdgeOptions(to configuration: inout ServerConfiguration) throws {
        let certificate = tlsCert ?? EnvironmentDefault.string("CALLGATE_TLS_CERT")
        let key = tlsKey ?? EnvironmentDefault.string("CALLGATE_TLS_KEY")
        switch (certificate, key) {
        case (nil, nil):
            configuration.tls = nil
        case (let certificate?, let key?):
            for (name, path) in [("--tls-cert", certificate), ("--tls-key", key)]
            where !FileManager.default.isReadableFile(atPath: path) {
                throw ValidationError("\(name): cannot read \(path)")
            }
            configuration.tls = ServerTLS(certificateFile: certificate, privateKeyFile: key)
        default:
            throw ValidationError("--tls-cert and --tls-key (CALLGATE_TLS_CERT, CALLGATE_TLS_KEY) go together")
        }
        let proxies = trustedProxy.isEmpty ? Self.list(EnvironmentDefault.string("CALLGATE_TRUSTED_PROXY")) : trustedProxy
        do {
            configuration.trustedProxies = try TrustedProxies(proxies)
        } catch {
            throw ValidationError("--trusted-proxy: \(error)")
        }
    }

    /// The entries of a comma- or space-separated list; none for nil.
    static func list(_ text: String?) -> [String] {
        guard let text else { return [] }
        return text.split { $0 == "," || $0 == " " || $0 == "\t" }.map(String.init)
    }
}
