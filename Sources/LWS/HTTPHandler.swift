/// Answers plain HTTP requests that reach the server. Called on the service thread only.
public protocol HTTPHandler: AnyObject {
    /// A complete request; respond now or later through `exchange.respond`.
    func handle(_ exchange: HTTPExchange)
}
