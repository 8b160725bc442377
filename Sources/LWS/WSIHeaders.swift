import CLibWebSockets

/// Reads request headers and the peer address of a wsi. Service thread only.
enum WSIHeaders {
    /// The whole value of a known header, or nil when absent.
    static func string(_ wsi: OpaquePointer, _ token: lws_token_indexes) -> String? {
        let length = Int(lws_hdr_total_length(wsi, token))
        guard length > 0 else { return nil }
        var buffer = [CChar](repeating: 0, count: length + 1)
        guard lws_hdr_copy(wsi, &buffer, Int32(buffer.count), token) >= 0 else { return nil }
        return String(decoding: buffer.prefix(length).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// The value of a header lws does not know by name (e.g. "authtoken"), or nil.
    static func custom(_ wsi: OpaquePointer, _ name: String) -> String? {
        let key = "\(name):"
        let length = Int(lws_hdr_custom_length(wsi, key, Int32(key.utf8.count)))
        guard length > 0 else { return nil }
        var buffer = [CChar](repeating: 0, count: length + 1)
        guard lws_hdr_custom_copy(wsi, &buffer, Int32(buffer.count), key, Int32(key.utf8.count)) >= 0 else {
            return nil
        }
        return String(decoding: buffer.prefix(length).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// The query's items, as lws split and decoded them: one per unencoded `&` or `;`, with
    /// `%XX` and `+` decoded, so an item's value may contain an `&` of its own.
    static func queryItems(_ wsi: OpaquePointer) -> [String] {
        var parts: [String] = []
        var buffer = [CChar](repeating: 0, count: 4096)
        var index: Int32 = 0
        while true {
            let length = lws_hdr_copy_fragment(wsi, &buffer, Int32(buffer.count), WSI_TOKEN_HTTP_URI_ARGS, index)
            if length < 0 { break }
            parts.append(String(decoding: buffer.prefix(Int(length)).map { UInt8(bitPattern: $0) }, as: UTF8.self))
            index += 1
        }
        return parts
    }

    /// The peer's numeric address.
    static func peerAddress(_ wsi: OpaquePointer) -> String {
        var buffer = [CChar](repeating: 0, count: 64)
        guard lws_get_peer_simple(wsi, &buffer, buffer.count) != nil else { return "" }
        let length = buffer.firstIndex(of: 0) ?? buffer.count
        return String(decoding: buffer.prefix(length).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
