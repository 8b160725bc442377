/// Makes session ids for new calls. Injected so tests can use predictable ids.
///
/// Ids must be unguessable in production (knowing one lets a client act on the call) and must
/// pass the core's session id rules: 1 to 128 characters of `[A-Za-z0-9._:-]`. The core draws
/// again when an id collides with a call it still knows. Service thread only.
public protocol SessionIDGenerator {
    /// A fresh session id.
    func makeSessionID() -> String
}
