import Foundation
import JWTKit

/// A public key in a PEM file (`--jwt-public-key`): one `PUBLIC KEY` block (SubjectPublicKeyInfo,
/// as `openssl pkey -pubout` writes it) or an `RSA PUBLIC KEY` block (PKCS #1), holding an RSA key
/// (bound to RS256), an EC P-256 key (ES256) or an Ed25519 key (EdDSA).
///
/// The key type is read from the algorithm identifier in the DER, so a key is bound to the one
/// algorithm its type allows and every refusal can say what the file holds instead. Pure
/// functions; any thread.
enum PEMPublicKey {
    /// What one PEM block holds, as far as choosing a parser goes.
    enum KeyType: Equatable {
        case rsa, p256, ed25519
        /// A type the gateway does not verify with, named for the error (`EC P-384`, `Ed448`).
        case unsupported(String)
    }

    /// The key in `text`, named `kid`, with `origin` (the file) in every error.
    static func key(fromPEM text: String, kid: String, origin: String) async throws(TokenKeyError) -> TokenKey {
        let (label, der) = try block(in: text, origin: origin)
        let type = keyType(label: label, der: der)
        do {
            switch type {
            case .rsa:
                return try await TokenKey.rsa(try Insecure.RSA.PublicKey(pem: text), kid: kid, origin: origin)
            case .p256:
                return await TokenKey.es256(try ES256PublicKey(pem: text), kid: kid, origin: origin)
            case .ed25519:
                return await TokenKey.eddsa(try EdDSA.PublicKey(pem: text), kid: kid, origin: origin)
            case .unsupported(let name):
                throw TokenKeyError(
                    "\(origin): holds \(name) key; accepted are RSA (RS256), EC P-256 (ES256) and Ed25519 (EdDSA)")
            }
        } catch let error as TokenKeyError {
            throw error
        } catch {
            let why = type == .rsa ? "an RSA key smaller than 2048 bits, or not a well-formed one" : "not a well-formed key"
            throw TokenKeyError("\(origin): \(why)")
        }
    }

    /// The label and DER bytes of the one PEM block in `text`; anything but exactly one block
    /// of a public key is refused, naming what was found.
    static func block(in text: String, origin: String) throws(TokenKeyError) -> (label: String, der: [UInt8]) {
        let begins = text.components(separatedBy: "-----BEGIN ").dropFirst()
        guard begins.count == 1, let first = begins.first else {
            throw TokenKeyError(
                begins.isEmpty
                    ? "\(origin): holds no PEM block (-----BEGIN PUBLIC KEY-----)"
                    : "\(origin): holds \(begins.count) PEM blocks; give one public key per file (repeat --jwt-public-key)")
        }
        let label = String(first.prefix { $0 != "-" })
        switch label {
        case "PUBLIC KEY", "RSA PUBLIC KEY":
            break
        case "CERTIFICATE":
            throw TokenKeyError("\(origin): holds a certificate; give its public key (openssl x509 -in FILE -pubkey -noout)")
        case _ where label.hasSuffix("PRIVATE KEY"):
            throw TokenKeyError("\(origin): holds a private key; give the gateway only its public key (openssl pkey -in FILE -pubout)")
        default:
            throw TokenKeyError("\(origin): holds a \(label) block, not a public key")
        }
        let body = first.drop { $0 != "\n" }.prefix { $0 != "-" }.filter { !$0.isWhitespace }
        guard let der = Data(base64Encoded: String(body)), !der.isEmpty else {
            throw TokenKeyError("\(origin): the PEM block is not base64")
        }
        return (label, Array(der))
    }

    /// The key type `der` (a block labelled `label`) holds, from the algorithm identifier of a
    /// SubjectPublicKeyInfo (`SEQUENCE { SEQUENCE { OID, parameters }, BIT STRING }`): an
    /// `RSA PUBLIC KEY` block is RSA by its label.
    static func keyType(label: String, der: [UInt8]) -> KeyType {
        if label == "RSA PUBLIC KEY" { return .rsa }
        guard let outer = contents(of: der[...]), let identifier = contents(of: outer) else {
            return .unsupported("an unreadable")
        }
        if identifier.holds(rsaEncryption) { return .rsa }
        if identifier.holds(ed25519) { return .ed25519 }
        if identifier.holds(ed448) { return .unsupported("an Ed448") }
        guard identifier.holds(ecPublicKey) else { return .unsupported("an unknown kind of") }
        if identifier.holds(p256) { return .p256 }
        if identifier.holds(p384) { return .unsupported("an EC P-384") }
        if identifier.holds(p521) { return .unsupported("an EC P-521") }
        return .unsupported("an EC")
    }

    /// The contents of the DER SEQUENCE that `bytes` starts with, nil when they do not start with
    /// a whole one.
    private static func contents(of bytes: ArraySlice<UInt8>) -> ArraySlice<UInt8>? {
        var index = bytes.startIndex
        guard bytes.count >= 2, bytes[index] == 0x30 else { return nil }
        index += 1
        var length = Int(bytes[index])
        index += 1
        if length >= 0x80 {
            let digits = length - 0x80
            guard (1...3).contains(digits), bytes.endIndex - index >= digits else { return nil }
            length = bytes[index..<index + digits].reduce(0) { $0 << 8 | Int($1) }
            index += digits
        }
        guard bytes.endIndex - index >= length else { return nil }
        return bytes[index..<index + length]
    }

    // DER-encoded object identifiers (tag, length, value) of the key types.
    /// rsaEncryption, 1.2.840.113549.1.1.1.
    private static let rsaEncryption: [UInt8] = [0x06, 0x09, 0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x01, 0x01]
    /// id-ecPublicKey, 1.2.840.10045.2.1.
    private static let ecPublicKey: [UInt8] = [0x06, 0x07, 0x2A, 0x86, 0x48, 0xCE, 0x3D, 0x02, 0x01]
    /// prime256v1 (P-256), 1.2.840.10045.3.1.7.
    private static let p256: [UInt8] = [0x06, 0x08, 0x2A, 0x86, 0x48, 0xCE, 0x3D, 0x03, 0x01, 0x07]
    /// secp384r1 (P-384), 1.3.132.0.34.
    private static let p384: [UInt8] = [0x06, 0x05, 0x2B, 0x81, 0x04, 0x00, 0x22]
    /// secp521r1 (P-521), 1.3.132.0.35.
    private static let p521: [UInt8] = [0x06, 0x05, 0x2B, 0x81, 0x04, 0x00, 0x23]
    /// id-Ed25519, 1.3.101.112.
    private static let ed25519: [UInt8] = [0x06, 0x03, 0x2B, 0x65, 0x70]
    /// id-Ed448, 1.3.101.113.
    private static let ed448: [UInt8] = [0x06, 0x03, 0x2B, 0x65, 0x71]
}

extension ArraySlice where Element == UInt8 {
    /// Whether `needle` occurs in these bytes.
    fileprivate func holds(_ needle: [UInt8]) -> Bool {
        guard needle.count <= count else { return false }
        return (startIndex...(endIndex - needle.count)).contains { start in
            self[start..<start + needle.count].elementsEqual(needle)
        }
    }
}
