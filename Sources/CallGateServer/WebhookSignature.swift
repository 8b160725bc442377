import Crypto
import Foundation

/// Standard Webhooks signing: `webhook-signature` is `v1,<base64 HMAC-SHA256>` of
/// `<webhook-id>.<webhook-timestamp>.<body>` under each secret, space-separated, so a receiver
/// verifies with whichever secret it has while one rotates. A secret is `whsec_` and the base64
/// of 24 to 64 random bytes. Pure; any thread.
enum WebhookSignature {
    /// The secret prefix.
    static let prefix = "whsec_"
    /// What a valid secret looks like, for error messages.
    static let rule = "expected whsec_ and the base64 of 24 to 64 bytes"

    /// The key bytes of `secret`; nil when it is not `whsec_` and the base64 of 24 to 64 bytes.
    static func key(of secret: String) -> SymmetricKey? {
        guard secret.hasPrefix(prefix), secret.utf8.count <= prefix.utf8.count + 88,
              let bytes = Data(base64Encoded: String(secret.dropFirst(prefix.count))),
              (24...64).contains(bytes.count)
        else { return nil }
        return SymmetricKey(data: bytes)
    }

    /// A new secret of 32 random bytes.
    static func makeSecret() -> String {
        prefix + SymmetricKey(size: .bits256).withUnsafeBytes { Data($0).base64EncodedString() }
    }

    /// The `webhook-signature` value for message `id` sent at `timestamp` (Unix seconds) with
    /// `body`, under every secret in `secrets` that is valid.
    static func header(id: String, timestamp: Int64, body: Data, secrets: [String]) -> String {
        var signed = Data("\(id).\(timestamp).".utf8)
        signed.append(body)
        return secrets.compactMap(key(of:)).map { key in
            "v1," + Data(HMAC<SHA256>.authenticationCode(for: signed, using: key)).base64EncodedString()
        }.joined(separator: " ")
    }
}
