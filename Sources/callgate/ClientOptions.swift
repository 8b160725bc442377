import ArgumentParser
import Foundation
import CallGateKit
import CallGateConsole
import CallGateProtocol
import CallGateServer

/// The options `listen` and `call` share: where the gateway is and who to connect as.
struct ClientOptions: ParsableArguments {
    @Option(name: .customLong("as"), help: "The user to connect as (the token's uid).")
    var uid: String

    @Option(help: "Display name put in a minted token (default: the uid).")
    var name: String?

    @Option(help: "Gateway host (default 127.0.0.1, or CALLGATE_HOST).")
    var host: String?

    @Option(help: "Gateway port (default 8080, or CALLGATE_PORT).")
    var port: Int?

    @Option(name: .customLong("jwt-secret"), help: "Mint a token with the gateway's secret (or set CALLGATE_JWT_SECRET).")
    var jwtSecret: String?

    @Option(help: "A connection token, used when no secret is given.")
    var token: String?

    /// The `ws://` address the options name.
    var endpoint: String {
        get throws { "ws://\(try resolvedHost):\(try resolvedPort)\(WireEndpoint.path)" }
    }

    var resolvedHost: String {
        get throws { host ?? EnvironmentDefault.string("CALLGATE_HOST") ?? "127.0.0.1" }
    }

    var resolvedPort: Int {
        get throws {
            if let port { return port }
            guard let text = EnvironmentDefault.string("CALLGATE_PORT") else { return 8080 }
            guard let port = Int(text) else { throw ValidationError("CALLGATE_PORT must be a number, got '\(text)'") }
            return port
        }
    }

    /// The token to connect with: minted when a secret is known, else `--token`.
    func connectionToken() async throws -> String {
        if let secret = jwtSecret ?? EnvironmentDefault.string("CALLGATE_JWT_SECRET") {
            let request: TokenRequest
            do {
                request = try TokenRequest(uid: uid, name: name, avatar: nil, ttl: nil)
            } catch {
                throw ValidationError(error.message)
            }
            return try await TokenService(secret: secret).mint(user: request.user, ttl: request.ttl).token
        }
        guard let token else {
            throw ValidationError(
                "give --jwt-secret (or set CALLGATE_JWT_SECRET) to mint a token for \(uid), or pass one with --token")
        }
        return token
    }

    /// A device connected as `--as` that reconnects and recovers when its socket drops (a
    /// token is minted again when the one held is about to expire), with its events from before
    /// it connected; a one-line reason on failure.
    func connectedDevice() async throws -> (CallGateConnection, AsyncStream<CallGateEvent>, ConnectResult) {
        let endpoint = try endpoint
        guard let url = URL(string: endpoint) else { throw ValidationError("not a gateway address: \(endpoint)") }
        let options = self
        let configuration = CallGateConfiguration(
            url: url, token: try await connectionToken(), fetchToken: { try await options.connectionToken() })
        let device = CallGateConnection(configuration: configuration)
        let events = await device.events()
        do {
            return (device, events, try await device.connect())
        } catch {
            await device.close()
            throw CommandFailure(GatewayProblem.explain(error, endpoint: endpoint))
        }
    }
}
