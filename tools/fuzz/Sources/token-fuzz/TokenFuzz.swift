// libFuzzer target `token`: TokenService.verify (connection tokens) and verifyCallToken (call
// tokens) of CallGateServer, with the service's secret known to the harness.
//
// Two input shapes, told apart by the first byte:
//  - anything not starting with `{` is the token text itself (`header.payload.signature`), as a
//    client sends it in `connect` (UTF-8, invalid sequences repaired). Random signatures never
//    match, so this shape exercises the pre-checks (three parts, base64url, nesting, the HS256 pin)
//    and jwt-kit's parsing up to the signature check.
//  - `{...}` is JSON the harness signs itself: `header-JSON NUL payload-JSON`, or without a NUL
//    byte the payload alone under `{"alg":"HS256","typ":"JWT"}`. Each part is base64url-encoded
//    as is and the token signed with HMAC-SHA256 under the service's key, so the claims checks
//    behind the signature (sub, name, exp, typ, sid) are reached with arbitrary JSON.
//
// Properties checked (each failure traps):
//  1. Neither verify traps or overflows the stack, whatever the token.
//  2. An accepted token names exactly HS256 in its header and its signature decodes to the
//     HMAC-SHA256 of `header.payload` under the secret (a reference computed here with
//     swift-crypto, independently of jwt-kit).
//  3. An accepted connection token carries a valid uid (`sub`) and name, equal to what its
//     payload says (read with JSONSerialization), and no `typ`.
//  4. No token is both a connection token and a call token; an accepted call token has typ "call".
import CallGateCore
import CallGateProtocol
import CallGateServer
import Crypto
import Foundation
import FuzzSupport

private let secret = "fuzz-secret"

/// The HMAC key TokenService derives from `secret`: its UTF-8 bytes, zero-padded to 32.
private let key: SymmetricKey = {
    var bytes = Array(secret.utf8)
    if bytes.count < 32 { bytes += [UInt8](repeating: 0, count: 32 - bytes.count) }
    return SymmetricKey(data: bytes)
}()

private let defaultHeader = Array(#"{"alg":"HS256","typ":"JWT"}"#.utf8)

private let service: TokenService = runBlocking { try! await TokenService(secret: secret) }

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let input = UnsafeBufferPointer(start: data, count: size)
    let token: String
    if input.first == UInt8(ascii: "{") {
        let header: ArraySlice<UInt8>
        let payload: ArraySlice<UInt8>
        if let nul = input.firstIndex(of: 0) {
            header = ArraySlice(input[..<nul])
            payload = ArraySlice(input[(nul + 1)...])
        } else {
            header = ArraySlice(defaultHeader)
            payload = ArraySlice(input)
        }
        token = sign(header: header, payload: payload)
    } else {
        token = String(decoding: input, as: UTF8.self)
    }
    let (connection, call) = runBlocking { [token] in
        (await service.verify(token), await service.verifyCallToken(token))
    }
    if case .success(let user) = connection {
        checkAccepted(token)
        checkConnectionClaims(token, user: user)
        if case .success = call { fatalError("token accepted both as a connection and as a call token") }
    }
    if case .success = call {
        checkAccepted(token)
        if let payload = comparablePayload(token), payload["typ"] != .string("call") {
            fatalError("call token accepted without typ \"call\"")
        }
    }
    return 0
}

// MARK: - Reference

private func base64URL(_ bytes: some Sequence<UInt8>) -> String {
    Data(bytes).base64EncodedString()
        .replacingOccurrences(of: "+", with: "-")
        .replacingOccurrences(of: "/", with: "_")
        .replacingOccurrences(of: "=", with: "")
}

private func decodeBase64URL(_ text: Substring) -> Data? {
    var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
    while base64.utf8.count % 4 != 0 { base64 += "=" }
    return Data(base64Encoded: base64)
}

private func sign(header: ArraySlice<UInt8>, payload: ArraySlice<UInt8>) -> String {
    let signingInput = base64URL(header) + "." + base64URL(payload)
    let mac = HMAC<SHA256>.authenticationCode(for: Array(signingInput.utf8), using: key)
    return signingInput + "." + base64URL(Array(mac))
}

/// Part `index` (0 header, 1 payload, 2 signature) of `token`, base64url-decoded.
private func part(_ token: String, _ index: Int) -> Data? {
    let parts = token.split(separator: ".", omittingEmptySubsequences: false)
    guard parts.count == 3 else { return nil }
    return decodeBase64URL(parts[index])
}

/// A JSON object, read with JSONSerialization as plain values.
private enum Plain: Equatable {
    case string(String)
    case other
}

private func jsonObject(_ data: Data) -> [String: Plain]? {
    guard let object = try? JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed]) as? [String: Any] else {
        return nil
    }
    return object.mapValues { ($0 as? String).map(Plain.string) ?? .other }
}

private struct AlgorithmField: Decodable {
    var alg: String
}

/// What every accepted token must be: HS256, and signed with the secret.
private func checkAccepted(_ token: String) {
    let parts = token.split(separator: ".", omittingEmptySubsequences: false)
    guard parts.count == 3 else { fatalError("accepted a token of \(parts.count) parts") }
    // JSONSerialization refuses a header with invalid UTF-8 anywhere; JSONDecoder, which jwt-kit
    // and the HS256 pin use, only minds it in the fields it reads. Fall back to it for those.
    let header = part(token, 0)
    let alg: Plain?
    if let object = header.flatMap(jsonObject) {
        alg = object["alg"]
    } else {
        alg = header.flatMap { try? JSONDecoder().decode(AlgorithmField.self, from: $0) }.map { .string($0.alg) }
    }
    guard alg == .string(TokenService.algorithm) else {
        fatalError("accepted a token whose header does not name HS256: \(token)")
    }
    let expected = HMAC<SHA256>.authenticationCode(for: Array("\(parts[0]).\(parts[1])".utf8), using: key)
    guard let signature = decodeBase64URL(parts[2]), signature == Data(expected) else {
        fatalError("accepted a token whose signature is not the HMAC of its header and payload: \(token)")
    }
}

/// The payload as JSONSerialization reads it, when that can be compared with what jwt-kit read:
/// not when JSONSerialization refuses it (it rejects invalid UTF-8 anywhere, JSONDecoder only in
/// the fields it reads), nor when a key may be repeated (written twice, or any \u escape that
/// could spell one): for `{"sub":"alice","sub":"bob"}` jwt-kit (JSONDecoder) takes the first value
/// and JSONSerialization the last, a known difference (see README.md, "Findings").
private func comparablePayload(_ token: String) -> [String: Plain]? {
    guard let raw = part(token, 1), let payload = jsonObject(raw) else { return nil }
    let text = String(decoding: raw, as: UTF8.self)
    guard !text.contains("\\u"),
          ["sub", "name", "typ", "sid"].allSatisfy({ text.components(separatedBy: "\"\($0)\"").count <= 2 })
    else { return nil }
    return payload
}

private func checkConnectionClaims(_ token: String, user: User) {
    guard FieldRules.isValidID(user.uid), FieldRules.isValidName(user.name) else {
        fatalError("accepted a connection token for an invalid user \(user)")
    }
    guard let payload = comparablePayload(token) else { return }
    guard payload["sub"] == .string(user.uid) else {
        fatalError("accepted user \(user.uid.debugDescription), payload sub is \(String(describing: payload["sub"]))")
    }
    if let name = payload["name"], case .string(let text) = name, text != user.name {
        fatalError("accepted name \(user.name.debugDescription), payload name is \(text.debugDescription)")
    }
    if case .string? = payload["typ"] { fatalError("accepted a connection token with a typ") }
}
