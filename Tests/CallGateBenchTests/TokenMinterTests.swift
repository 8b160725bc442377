import Foundation
import Testing

@testable import CallGateBench

@Suite struct TokenMinterTests {
    private func payload(_ token: String) throws -> [String: Any] {
        let parts = token.split(separator: ".")
        try #require(parts.count == 3)
        var base64 = parts[1].replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
        let data = try #require(Data(base64Encoded: base64))
        return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    @Test func tokensNameTheirUserAndExpireLater() async throws {
        let tokens = try await TokenMinter(secret: "short").tokens(count: 3)
        #expect(tokens.count == 3)
        let claims = try payload(tokens[2])
        #expect(claims["sub"] as? String == "u2")
        #expect(claims["name"] as? String == "u2")
        let exp = try #require(claims["exp"] as? Double)
        #expect(exp > Date().timeIntervalSince1970)
        let header = try #require(tokens[0].split(separator: ".").first)
        #expect(header.hasPrefix("eyJ"))
    }

    @Test func anEmptySecretIsRefused() async {
        await #expect(throws: BenchError.self) { _ = try await TokenMinter(secret: "") }
    }
}
