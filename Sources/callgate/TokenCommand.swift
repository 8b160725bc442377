import ArgumentParser
import CallGateProtocol
import CallGateServer
import Foundation

/// `callgate token`: prints a connection token for a user.
struct TokenCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "token",
        abstract: "Print a connection token for a user: HS256 with the gateway's secret, or RS256, ES256 or EdDSA with a private key.",
        discussion: "The secret can also come from CALLGATE_JWT_SECRET, or the config file CALLGATE_CONFIG names (its jwt-secret). With --private-key, the token is signed with that key (its type picks the algorithm) and names --kid, by default the key file's name without extension: the kid a gateway given the public key with --jwt-public-key knows it by."
    )

    @Option(help: "The user's id (the token's sub).")
    var uid: String

    @Option(help: "Display name (default: the uid).")
    var name: String?

    @Option(help: "Picture URL.")
    var avatar: String?

    @Option(help: "Lifetime in seconds (default 86400).")
    var ttl: Int?

    @Option(name: .customLong("jwt-secret"), help: "The gateway's token secret.")
    var jwtSecret: String?

    @Option(name: .customLong("private-key"), help: "PEM file of a private key (RSA, EC P-256 or Ed25519) to sign with instead of a secret.")
    var privateKey: String?

    @Option(help: "The kid the token names, with --private-key (default: the key file's name without extension).")
    var kid: String?

    func run() async throws {
        let request: TokenRequest
        do {
            request = try TokenRequest(uid: uid, name: name, avatar: avatar, ttl: ttl)
        } catch {
            throw ValidationError(error.message)
        }
        if let privateKey {
            guard jwtSecret == nil else { throw ValidationError("give --jwt-secret or --private-key, not both") }
            guard kid == nil || kid?.isEmpty == false else { throw ValidationError("--kid must not be empty") }
            guard let pem = FileManager.default.contents(atPath: privateKey) else {
                throw ValidationError("--private-key: cannot read \(privateKey)")
            }
            let named = kid ?? URL(fileURLWithPath: privateKey).deletingPathExtension().lastPathComponent
            let signer: PrivateKeyTokenSigner
            do {
                signer = try await PrivateKeyTokenSigner(pem: String(decoding: pem, as: UTF8.self), kid: named)
            } catch {
                throw ValidationError("--private-key \(privateKey): \(error)")
            }
            print(try await signer.mint(user: request.user, ttl: request.ttl).token)
            return
        }
        guard kid == nil else { throw ValidationError("--kid goes with --private-key") }
        let configured: String?
        do {
            configured = try jwtSecret == nil ? ServeSettings.fromEnvironment().text(.jwtSecret) : nil
        } catch {
            throw CommandFailure(error.description)
        }
        guard let secret = jwtSecret ?? configured else {
            throw ValidationError(
                "give --jwt-secret, or set CALLGATE_JWT_SECRET or jwt-secret in the CALLGATE_CONFIG file (the secret the gateway runs with), or --private-key")
        }
        let service = try await TokenService(secret: secret)
        let minted = try await service.mint(user: request.user, ttl: request.ttl)
        print(minted.token)
    }
}
