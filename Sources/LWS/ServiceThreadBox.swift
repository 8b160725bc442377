/// Carries a service-thread object through a `@Sendable` closure that will run on that same thread.
///
/// The box promises nothing by itself: whoever opens it must be on the owning service thread,
/// typically inside `LWSContext.post`.
public struct ServiceThreadBox<Value>: @unchecked Sendable {
    /// The object; touch it on its service thread only.
    public let value: Value

    public init(_ value: Value) {
        self.value = value
    }
}
