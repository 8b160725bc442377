// libFuzzer target `frame`: the request and server frame decoders of CallGateProtocol, the
// JSONParser and JSONWriter under them, and the JSON nesting scan that guards Foundation's
// decoder elsewhere. The input is one WebSocket text message, as raw bytes.
//
// Properties checked (each failure traps, so libFuzzer saves the input as a crash):
//  1. Nothing traps or overflows the stack, whatever the bytes.
//  2. JSONNesting.depth(of:limit:) agrees with itself: the same answer for contiguous and
//     non-contiguous collections, and `min(depth, limit + 1)` for every limit; bytes holding a
//     NUL (UTF-16/32 text, which the UTF-8 scan cannot measure) are `Int.max` unlimited and
//     deeper than every limit.
//  3. JSONNesting agrees with a reference on whether decoding is safe: whenever Foundation's
//     JSONDecoder (what HTTP bodies and clients use) accepts the bytes as a JSONValue, the
//     nesting it built is no deeper than JSONNesting measured. If it were deeper, the cap of
//     JSONNesting.maxDepth levels would not bound the decoder's recursion.
//  4. RequestFrame.decode gives the same result for [UInt8] and Data input; a FrameDecodingError
//     carries either no id or a valid one (1 to 64 UTF-8 bytes).
//  5. Round trip: a decoded frame encodes (`encoded()` must not throw), the encoding decodes to an
//     equal frame, and encoding that again gives the same bytes.
//  6. ServerFrame.decode either throws or classifies the frame; a push's typed `Push` decode and a
//     reply's `decodeResult` do not trap.
//  7. JSONParser (what RequestFrame.decode uses) reads nothing Foundation would not read the
//     same way: a value it parses nests at most the limit, Foundation's decoder reads the same
//     bytes to an equal value (or refuses a zero such as `0.0e5`, its one stray from RFC 8259
//     that way), and JSONWriter writes the value as text that parses back equal.
import CallGateProtocol
import Foundation

/// What RequestFrame.decode's decoder is (WireJSON.decoder is a plain JSONDecoder).
private let referenceDecoder = JSONDecoder()

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let buffer = UnsafeBufferPointer(start: data, count: size)
    let bytes = Array(buffer)
    let message = Data(buffer)
    checkNesting(bytes, message)
    checkRequestFrame(bytes, message)
    checkServerFrame(message)
    checkParser(bytes, message)
    return 0
}

// MARK: - 2, 3: JSONNesting

private func checkNesting(_ bytes: [UInt8], _ message: Data) {
    let full = JSONNesting.depth(of: bytes, limit: Int.max)
    // A collection without contiguous storage takes the other path through depth(of:).
    let viaCopy = JSONNesting.depth(of: bytes.lazy.map { $0 }, limit: Int.max)
    guard viaCopy == full else {
        fatalError("JSONNesting: contiguous scan says \(full), non-contiguous scan says \(viaCopy)")
    }
    guard JSONNesting.depth(of: message, limit: Int.max) == full else {
        fatalError("JSONNesting: Data and [UInt8] scans differ")
    }
    guard bytes.contains(0) == (full == Int.max) else {
        fatalError("JSONNesting: a NUL byte must make the depth Int.max, and only a NUL; got \(full)")
    }
    for limit in [0, 1, 2, JSONNesting.maxDepth - 1, JSONNesting.maxDepth] {
        let capped = JSONNesting.depth(of: bytes, limit: limit)
        let expected = full > limit ? limit + 1 : full
        guard capped == expected || (full == Int.max && capped > limit) else {
            fatalError("JSONNesting: depth(limit: \(limit)) = \(capped), expected \(expected) (full depth \(full))")
        }
        guard JSONNesting.exceeds(limit, in: bytes) == (full > limit) else {
            fatalError("JSONNesting: exceeds(\(limit)) disagrees with depth \(full)")
        }
    }
    // The reference: what the decoder actually builds from bytes the scan lets through.
    guard full <= JSONNesting.maxDepth else { return }
    guard let value = try? referenceDecoder.decode(JSONValue.self, from: message) else { return }
    guard value.depth <= full else {
        fatalError("JSONNesting under-counts: the scan says \(full) levels, JSONDecoder built \(value.depth)")
    }
}

// MARK: - 4, 5: RequestFrame

private func checkRequestFrame(_ bytes: [UInt8], _ message: Data) {
    let fromArray = Result { () throws(FrameDecodingError) in try RequestFrame.decode(bytes) }
    let fromData = Result { () throws(FrameDecodingError) in try RequestFrame.decode(message) }
    guard fromArray == fromData else {
        fatalError("RequestFrame.decode: [UInt8] gives \(fromArray), Data gives \(fromData)")
    }
    let frame: RequestFrame
    switch fromArray {
    case .failure(let error):
        if let id = error.id, !(1...RequestFrame.maxIDLength).contains(id.utf8.count) {
            fatalError("FrameDecodingError carries an invalid id of \(id.utf8.count) bytes")
        }
        return
    case .success(let decoded):
        frame = decoded
    }
    guard (1...RequestFrame.maxIDLength).contains(frame.id.utf8.count) else {
        fatalError("decoded frame has an id of \(frame.id.utf8.count) bytes")
    }
    let encoded: Data
    do {
        encoded = try frame.encoded()
    } catch {
        fatalError("a decoded frame does not encode: \(error)")
    }
    let again: RequestFrame
    do {
        again = try RequestFrame.decode(encoded)
    } catch {
        fatalError("the encoding of a decoded frame does not decode: \(error.message)\n\(String(decoding: encoded, as: UTF8.self))")
    }
    guard again == frame else {
        fatalError("round trip changed the frame:\n\(frame)\n\(again)")
    }
    guard let encodedAgain = try? again.encoded(), encodedAgain == encoded else {
        fatalError("encoding is not stable across a round trip")
    }
}

// MARK: - 6: ServerFrame

private struct AnyJSON: Decodable {}

private func checkServerFrame(_ message: Data) {
    guard let frame = try? ServerFrame.decode(message) else { return }
    switch frame {
    case .push(let event, _, let raw):
        guard raw == message else { fatalError("ServerFrame.push does not carry the frame it was read from") }
        _ = try? Push(event: event, frame: raw)
    case .reply(let id, let outcome):
        _ = id
        _ = try? outcome.decodeResult(JSONValue.self)
        _ = try? outcome.decodeResult(AnyJSON.self)
    }
}

// MARK: - 7: JSONParser and JSONWriter

private func checkParser(_ bytes: [UInt8], _ message: Data) {
    guard let value = try? JSONParser.parse(bytes, maxDepth: JSONNesting.maxDepth) else { return }
    guard value.depth <= JSONNesting.maxDepth else {
        fatalError("JSONParser built \(value.depth) levels, past its limit of \(JSONNesting.maxDepth)")
    }
    if let reference = try? referenceDecoder.decode(JSONValue.self, from: message) {
        guard reference == value else {
            fatalError("JSONParser read \(value), Foundation read \(reference)")
        }
    } else if !hasZero(value) {
        fatalError("JSONParser accepted text Foundation refuses, and it holds no zero: \(value)")
    }
    var json = JSONWriter()
    json.value(value)
    guard let again = try? JSONParser.parse(json.bytes, maxDepth: JSONNesting.maxDepth), again == value else {
        fatalError("JSONWriter's text does not parse back equal: \(String(decoding: json.bytes, as: UTF8.self))")
    }
}

/// Whether `value` holds the number zero anywhere.
private func hasZero(_ value: JSONValue) -> Bool {
    switch value {
    case .number(let number): number == 0
    case .array(let values): values.contains(where: hasZero)
    case .object(let fields): fields.values.contains(where: hasZero)
    case .null, .bool, .string: false
    }
}
