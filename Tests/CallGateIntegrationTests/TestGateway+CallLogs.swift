import CallGateProtocol
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The call log API of a test gateway, as a user sees it.
extension TestGateway {
    /// `GET path` with `uid`'s token in the `authToken` header (or as a bearer token); the
    /// status and the body.
    func userGet(_ path: String, as uid: String?, bearer: Bool = false) async throws -> (Int, Data) {
        guard let uid else { return try await get(path, headers: [:]) }
        let token = try await token(uid)
        return try await get(path, headers: bearer ? ["Authorization": "Bearer \(token)"] : ["authToken": token])
    }

    /// `GET path` with these headers; the status and the body.
    func get(_ path: String, headers: [String: String]) async throws -> (Int, Data) {
        var request = URLRequest(url: URL(string: "http://127.0.0.1:\(port)\(path)")!)
        for (name, value) in headers {
            request.setValue(value, forHTTPHeaderField: name)
        }
        let (data, response) = try await URLSession.shared.data(for: request)
        return ((response as? HTTPURLResponse)?.statusCode ?? 0, data)
    }

    /// One page of `uid`'s call log for `query` (e.g. `direction=incoming`); fails unless 200.
    func callLogs(_ uid: String, _ query: String = "") async throws -> CallLogListBody {
        let (status, body) = try await userGet("/v3.0/calls" + (query.isEmpty ? "" : "?\(query)"), as: uid)
        guard status == 200 else { throw UnexpectedStatus(status: status, body: String(decoding: body, as: UTF8.self)) }
        return try JSONDecoder().decode(CallLogListBody.self, from: body)
    }

    /// Waits until the call `sessionId` is in `uid`'s log: a call that only started is written
    /// without holding its pushes back, so it may take one commit to appear.
    func awaitLogged(_ sessionId: String, for uid: String) async throws {
        for _ in 0..<100 {
            if try await callLogs(uid, "perPage=100").data.contains(where: { $0.sessionId == sessionId }) {
                return
            }
            try await Task.sleep(for: .milliseconds(20))
        }
        throw UnexpectedStatus(status: 0, body: "call \(sessionId) never appeared in \(uid)'s log")
    }

    /// The session ids of one page of `uid`'s call log, newest first.
    func callLogIDs(_ uid: String, _ query: String = "") async throws -> [String] {
        try await callLogs(uid, query).data.map(\.sessionId)
    }
}

/// An HTTP answer other than the one a test expected.
struct UnexpectedStatus: Error, CustomStringConvertible {
    let status: Int
    let body: String

    var description: String { "HTTP \(status): \(body)" }
}
