import CallGateProtocol

/// Builds the timeline of a call (`GET /v3.0/calls/{sessionId}/timeline`) from what the store
/// keeps: the steps saved with its record, and the attempts of the webhook deliveries about it,
/// merged in order of time. A meeting id may hold several meetings over time: a delivery
/// belongs to the call it happened during (from its initiation to the second after it ended,
/// or now for a call still open). Pure; any thread.
public enum CallTimelineBuilder {
    /// The most webhook deliveries read for one session id's timelines.
    public static let maxDeliveries = 200

    /// The timeline of `record` with the webhook deliveries among `deliveries` that are about it.
    public static func timeline(of record: CallLogRecord, deliveries: [WebhookDeliveryRecord]) -> CallTimeline {
        // Compared, never made a range: a wall clock stepped back (or a takeover by a node whose
        // clock is behind) may log a call as ending before it began.
        let from = millis(record.initiatedAt)
        let until = record.endedAt.map { millis($0.addingReportingOverflow(1).partialValue) } ?? Int64.max
        var steps = record.steps.steps
        for delivery in deliveries
        where delivery.sessionId == record.sessionId && delivery.createdAt >= from && delivery.createdAt < until {
            steps += webhookSteps(of: delivery)
        }
        // A stable sort: steps of one millisecond stay in the order they happened.
        let ordered = steps.enumerated().sorted { ($0.element.at, $0.offset) < ($1.element.at, $1.offset) }.map(\.element)
        return CallTimeline(
            sessionId: record.sessionId, callCategory: record.callCategory, callStatus: record.callStatus,
            initiatedAt: record.initiatedAt, steps: ordered, omittedSteps: record.steps.omitted)
    }

    /// A step per attempt of `delivery`, or one `pending` step for a delivery not attempted yet.
    static func webhookSteps(of delivery: WebhookDeliveryRecord) -> [CallStep] {
        guard !delivery.attempts.isEmpty else {
            return [CallStep(
                at: delivery.createdAt, step: .webhook, event: delivery.type.rawValue, endpoint: delivery.endpointID,
                result: delivery.status == .pending ? "pending" : result(of: delivery.status))]
        }
        return delivery.attempts.enumerated().map { index, attempt in
            CallStep(
                at: attempt.at, step: .webhook, event: delivery.type.rawValue, endpoint: delivery.endpointID,
                attempt: index + 1, result: result(of: attempt.status), httpStatus: attempt.statusCode)
        }
    }

    /// Unix seconds as milliseconds, saturating for a stored value too large to convert.
    private static func millis(_ seconds: Int64) -> Int64 {
        let (value, overflow) = seconds.multipliedReportingOverflow(by: 1000)
        return overflow ? (seconds < 0 ? Int64.min : Int64.max) : value
    }

    /// How an attempt ended, as the timeline says it.
    private static func result(of status: WebhookDeliveryStatus) -> String {
        switch status {
        case .delivered: "delivered"
        case .pending: "failed"
        case .failed: "dead"
        }
    }
}
