/// Session ids of 128 random bits from the system's secure generator: `v1.` followed by
/// 32 lowercase hex digits.
public struct RandomSessionIDGenerator: SessionIDGenerator {
    /// Makes a random generator.
    public init() {}

    /// A fresh unguessable session id.
    public func makeSessionID() -> String {
        var generator = SystemRandomNumberGenerator()
        return "v1." + hex(generator.next()) + hex(generator.next())
    }

    private func hex(_ value: UInt64) -> String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }
}
