import ArgumentParser
import CallGateServer
import Foundation
import LWS

/// `serve`'s options for running at the edge: direct TLS and trusted reverse proxies.
extension ServeCommand {
    /// Reads `tls-cert`/`tls-key` and `trusted-proxy` into `configuration`. Throws a validation
    /// error naming the bad value: one of the two TLS files without the other, an unreadable
    /// file, or an entry that is not a CIDR.
    static func applyEdgeOptions(_ settings: ServeSettings, to configuration: inout ServerConfiguration) throws {
        switch (settings.text(.tlsCert), settings.text(.tlsKey)) {
        case (nil, nil):
            configuration.tls = nil
        case (let certificate?, let key?):
            for (setting, path) in [(ServeSetting.tlsCert, certificate), (.tlsKey, key)]
            where !FileManager.default.isReadableFile(atPath: path) {
                throw ValidationError("\(settings.spelling(of: setting)): cannot read \(path)")
            }
            configuration.tls = ServerTLS(certificateFile: certificate, privateKeyFile: key)
        default:
            throw ValidationError("tls-cert and tls-key (--tls-cert and --tls-key, CALLGATE_TLS_CERT and CALLGATE_TLS_KEY) go together")
        }
        do {
            configuration.trustedProxies = try TrustedProxies(settings.list(.trustedProxy))
        } catch {
            throw ValidationError("\(settings.spelling(of: .trustedProxy)): \(error)")
        }
    }
}
