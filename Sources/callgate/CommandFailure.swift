import ArgumentParser

/// A command that could not do its job, with one line saying why; printed as `Error: <message>`
/// and exits 1.
struct CommandFailure: Error, CustomStringConvertible {
    let description: String

    init(_ description: String) {
        self.description = description
    }
}
