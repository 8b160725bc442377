import Foundation
import Testing

/// Builds JWT text by hand, for tokens no honest signer would produce.
enum HandMadeJWT {
    /// Unpadded base64url of `bytes`.
    static func encode(_ bytes: some DataProtocol) -> String {
        Data(bytes).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    /// `header.payload.signature` from JSON texts and a raw signature segment.
    static func token(header: String, payload: String, signature: String = "") -> String {
        "\(encode(Array(header.utf8))).\(encode(Array(payload.utf8))).\(signature)"
    }

    /// The JSON object inside segment `index` (0 header, 1 payload) of `token`.
    static func object(_ index: Int, of token: String) throws -> [String: Any] {
        var segment = String(token.split(separator: ".")[index])
            .replacingOccurrences(of: "-", with: "+")
            .replacingOccurrences(of: "_", with: "/")
        segment += String(repeating: "=", count: (4 - segment.count % 4) % 4)
        let data = try #require(Data(base64Encoded: segment))
        return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }
}
