import CHiredis

extension redisContext {
    /// The error hiredis recorded on this connection (its fixed `errstr` buffer), as text.
    var errorText: String {
        var text = errstr
        return withUnsafeBytes(of: &text) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
    }
}
