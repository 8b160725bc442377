/// The `{"event", "data"}` shape of a push frame, generic over the data struct.
struct PushEnvelope<Payload: Codable>: Codable {
    /// The event name.
    var event: String
    /// The event's data.
    var data: Payload
}
