/// What the liveness sweep does with one socket it visits.
enum LivenessVerdict: Equatable {
    /// Heard from recently enough, or already pinged and still within its time.
    case keep
    /// Quiet for half the interval: send a WebSocket ping.
    case ping
    /// Quiet too long, or closing for longer than a visit period: drop the connection now.
    case drop
}
