/// The unauthenticated monitoring paths: Prometheus metrics and readiness.
enum MonitoringEndpoint: String {
    /// `GET /metrics`: every metric in the Prometheus text format.
    case metrics = "/metrics"
    /// `GET /readyz`: 200 while the store accepts writes, else 503.
    case readiness = "/readyz"
}
