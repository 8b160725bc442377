import ArgumentParser
import CallGateProtocol
import CallGateServer

/// `callgate token`: prints a connection token for a user.
struct TokenCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "token",
        abstract: "Print a connection token (HS256 JWT) for a user.",
        discussion: "The secret can also come from CALLGATE_JWT_SECRET."
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
        guard let secret = jwtSecret ?? EnvironmentDefault.string("CALLGATE_JWT_SECRET") else {
            throw ValidationError("give --jwt-secret or set CALLGATE_JWT_SECRET (the secret the gateway runs with)")
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
