/// The tables both call log stores keep, under the same names, in an order that keeps foreign
/// keys satisfied: what a copy from one store to the other (`callgate migrate-sqlite`) goes
/// through, table by table. `call_members` is not among them: it is derived from each call's
/// participants.
public enum StoreTable: String, CaseIterable, Sendable {
    case calls
    case recordingURLs = "recording_urls"
    case missedCalls = "missed_calls"
    case missedCallCounts = "missed_call_counts"
    case groups = "call_groups"
    case webhookEndpoints = "webhook_endpoints"
    case webhookMessages = "webhook_messages"
    case webhookDeliveries = "webhook_deliveries"
    case webhookAttempts = "webhook_attempts"
}
