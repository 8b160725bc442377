import CallGateProtocol
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The call log over HTTP, as one user reads it with their token: a page of their calls
/// (`GET /v3.0/calls`), the calls under one session id (`GET /v3.0/calls/{sessionId}`) and
/// what happened in them step by step (`GET /v3.0/calls/{sessionId}/timeline`). Apart from
/// `CallGateConnection`: an app reads its history with or without a connected device. Any
/// thread.
public struct CallLogAPI: Sendable {
    /// The gateway's HTTP address, e.g. `http://127.0.0.1:8080`.
    public let baseURL: URL
    /// The user's token, sent as `Authorization: Bearer`.
    public let token: String

    /// A reader of the call log at `baseURL` for the user of `token`.
    public init(baseURL: URL, token: String) {
        self.baseURL = baseURL
        self.token = token
    }

    /// One page of the user's calls, newest first. `query` takes the parameters of
    /// `GET /v3.0/calls` (`perPage`, `cursor`, `status`, `direction`, ...).
    public func calls(_ query: [String: String] = [:]) async throws -> CallLogListBody {
        try await get("/v3.0/calls", query: query)
    }

    /// Every call under `sessionId` the user was part of, newest first.
    public func calls(sessionId: String) async throws -> CallLogDetailBody {
        try await get("/v3.0/calls/\(Self.segment(sessionId))")
    }

    /// The timeline of every call under `sessionId` the user was part of, newest call first.
    public func timeline(sessionId: String) async throws -> CallTimelineBody {
        try await get("/v3.0/calls/\(Self.segment(sessionId))/timeline")
    }

    /// `GET path?query`, decoded as `Body`; a status other than 200 throws `CallLogAPIError`.
    private func get<Body: Decodable>(_ path: String, query: [String: String] = [:]) async throws -> Body {
        guard var components = URLComponents(url: baseURL, resolvingAgainstBaseURL: false) else {
            throw CallLogAPIError(status: 0, code: "ERR_BAD_URL", message: "not a URL: \(baseURL)")
        }
        // Below any path the base URL has (a gateway behind a proxy at a prefix), as sent.
        var base = components.percentEncodedPath
        while base.hasSuffix("/") {
            base.removeLast()
        }
        components.percentEncodedPath = base + path
        components.queryItems = query.isEmpty ? nil : query.sorted { $0.key < $1.key }.map { URLQueryItem(name: $0.key, value: $0.value) }
        guard let url = components.url else {
            throw CallLogAPIError(status: 0, code: "ERR_BAD_URL", message: "no URL for \(path)")
        }
        var request = URLRequest(url: url)
        request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
        let (data, response) = try await URLSession.shared.data(for: request)
        let status = (response as? HTTPURLResponse)?.statusCode ?? 0
        guard status == 200 else {
            let answer = try? JSONDecoder().decode(ErrorAnswer.self, from: data)
            throw CallLogAPIError(
                status: status, code: answer?.error.code ?? "HTTP_\(status)",
                message: answer?.error.message ?? String(decoding: data.prefix(200), as: UTF8.self))
        }
        return try JSONDecoder().decode(Body.self, from: data)
    }

    /// `sessionId` as one path segment: every character outside the session id alphabet, and
    /// every dot (so that `.` and `..` name no other path), is percent-encoded.
    private static func segment(_ sessionId: String) -> String {
        sessionId.addingPercentEncoding(withAllowedCharacters: allowed) ?? ""
    }

    private static let allowed = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_:-")

    /// The HTTP error body, `{"error": {"code", "message"}}`.
    private struct ErrorAnswer: Decodable {
        struct Detail: Decodable {
            var code: String
            var message: String
        }

        var error: Detail
    }
}

/// A call log request the gateway refused: its HTTP status and the error body's code and message.
public struct CallLogAPIError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The HTTP status (0 when none came back).
    public let status: Int
    /// The error code, e.g. `ERR_NOT_FOUND`.
    public let code: String
    /// What the gateway said.
    public let message: String

    /// An error of `status` with `code` and `message`.
    public init(status: Int, code: String, message: String) {
        self.status = status
        self.code = code
        self.message = message
    }

    public var description: String { "HTTP \(status) \(code): \(message)" }
}
