import ArgumentParser
import CallGateProtocol
import CallGateServer

/// `callgate token`: prints a connection token for a user.
struct TokenCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "token",
        abstract: "Print a connection token (HS256 JWT) for a user.",
        discussion: "The secret can also come from CALLGATE_JWT_SECRET, or the config file CALLGATE_CONFIG names (its jwt-secret)."
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

    func run() async throws {
        let configured: String?
        do {
            configured = try jwtSecret == nil ? ServeSettings.fromEnvironment().text(.jwtSecret) : nil
        } catch {
            throw CommandFailure(error.description)
        }
        guard let secret = jwtSecret ?? configured else {
            throw ValidationError(
                "give --jwt-secret, or set CALLGATE_JWT_SECRET or jwt-secret in the CALLGATE_CONFIG file (the secret the gateway runs with)")
        }
        let request: TokenRequest
        do {
            request = try TokenRequest(uid: uid, name: name, avatar: avatar, ttl: ttl)
        } catch {
            throw ValidationError(error.message)
        }
        let service = try await TokenService(secret: secret)
        let minted = try await service.mint(user: request.user, ttl: request.ttl)
        print(minted.token)
    }
}
