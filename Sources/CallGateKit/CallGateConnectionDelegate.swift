/// For UIKit- and AppKit-style apps: told of every event of a connection, in order, on the main
/// actor. Set with `CallGateConnection.setDelegate(_:)`; held weakly.
@MainActor
public protocol CallGateConnectionDelegate: AnyObject, Sendable {
    /// `connection` has `event` for the app.
    func connection(_ connection: CallGateConnection, didReceive event: CallGateEvent)
}
