/// Polls `condition` every `interval` for up to `seconds`; whether it came true.
public func eventually(
    within seconds: Double, every interval: Duration = .milliseconds(50), _ condition: () async throws -> Bool
) async throws -> Bool {
    let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
    while ContinuousClock.now < deadline {
        if try await condition() { return true }
        try await Task.sleep(for: interval)
    }
    return try await condition()
}
