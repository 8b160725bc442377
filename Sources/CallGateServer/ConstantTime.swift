/// Comparison of secrets in time that does not depend on where they differ.
///
/// Pure functions; any thread.
enum ConstantTime {
    /// Whether `given` equals `expected`. Runs over every byte of `expected` whatever `given` is,
    /// so timing reveals at most the length of `expected`.
    static func equals(_ given: some Collection<UInt8>, _ expected: some Collection<UInt8>) -> Bool {
        var difference: UInt8 = given.count == expected.count ? 0 : 1
        var givenIterator = given.makeIterator()
        for byte in expected {
            difference |= byte ^ (givenIterator.next() ?? ~byte)
        }
        return difference == 0
    }
}
