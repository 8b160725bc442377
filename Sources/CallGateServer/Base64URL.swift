import Foundation

/// Decoding of the unpadded base64url text that JWT segments use (RFC 7515, section 2).
///
/// Pure functions; any thread.
enum Base64URL {
    /// The bytes `text` encodes, or nil when it is not base64url.
    static func decode(_ text: Substring) -> Data? {
        var base64 = String(text)
            .replacingOccurrences(of: "-", with: "+")
            .replacingOccurrences(of: "_", with: "/")
        switch base64.utf8.count % 4 {
        case 2: base64 += "=="
        case 3: base64 += "="
        case 1: return nil
        default: break
        }
        return Data(base64Encoded: base64)
    }
}
