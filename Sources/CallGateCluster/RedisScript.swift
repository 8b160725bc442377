import Crypto

/// A Lua script run with `EVALSHA`, by its SHA-1; Redis caches scripts, so a server that does
/// not know it (restarted, flushed) answers `NOSCRIPT` and `RedisClient` sends it whole once.
public struct RedisScript: Sendable {
    /// What it is for, in logs.
    public let name: String
    public let source: String
    /// Lowercase hex SHA-1 of `source`, as Redis names scripts.
    public let sha1: String

    public init(name: String, source: String) {
        self.name = name
        self.source = source
        sha1 = Insecure.SHA1.hash(data: Array(source.utf8)).map { byte in
            let hex = String(byte, radix: 16)
            return byte < 16 ? "0" + hex : hex
        }.joined()
    }

    /// The script in `lua`: the UTF-8 of one of the `.lua` files compiled into the binary.
    public init(name: String, lua: [UInt8]) {
        self.init(name: name, source: String(decoding: lua, as: UTF8.self))
    }
}
