import Foundation

extension RequestFrame {
    /// How much of an unknown op name an error message quotes.
    private static let quotedOpLength = 64

    /// Decodes one request frame, as the server receives it.
    ///
    /// A missing or `null` `data` counts as `{}`; unknown fields are ignored. Every failure says
    /// which field was wrong and carries the frame's id whenever a valid one (a string of 1 to 64
    /// UTF-8 bytes) could be read, so the server can echo it in the `ERR_BAD_REQUEST` reply. A
    /// frame nesting arrays and objects deeper than `JSONNesting.maxDepth` is refused before it
    /// is parsed.
    public static func decode(_ bytes: some Collection<UInt8>) throws(FrameDecodingError) -> RequestFrame {
        guard !JSONNesting.exceeds(JSONNesting.maxDepth, in: bytes) else {
            throw FrameDecodingError(id: nil, message: "frame is not UTF-8 JSON nesting at most \(JSONNesting.maxDepth) levels")
        }
        let data = (bytes as? Data) ?? Data(bytes)
        let root: JSONValue
        do {
            root = try WireJSON.decoder.decode(JSONValue.self, from: data)
        } catch {
            throw FrameDecodingError(id: nil, message: "frame is not valid JSON")
        }
        guard case .object(let fields) = root else {
            throw FrameDecodingError(id: nil, message: "frame: expected a JSON object")
        }
        guard case .string(let id)? = fields["id"], (1...maxIDLength).contains(id.utf8.count) else {
            throw FrameDecodingError(id: nil, message: "id: expected a string of 1 to \(maxIDLength) UTF-8 bytes")
        }
        guard case .string(let opName)? = fields["op"] else {
            throw FrameDecodingError(id: id, message: "op: expected a string")
        }
        guard let op = Op(rawValue: opName) else {
            throw FrameDecodingError(id: id, message: "unknown op '\(opName.prefix(quotedOpLength))'")
        }
        let params: [String: JSONValue]
        switch fields["data"] {
        case nil, .null?:
            params = [:]
        case .object(let object)?:
            params = object
        default:
            throw FrameDecodingError(id: id, message: "data: expected an object")
        }
        let request = try ClientRequest(op: op, reading: FrameFieldReader(id: id, fields: params))
        return RequestFrame(id: id, request: request)
    }
}
