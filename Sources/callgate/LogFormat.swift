/// How `serve` writes its log lines (`log-format`).
enum LogFormat: String, CaseIterable {
    /// swift-log's own lines, for people.
    case text
    /// One JSON object per line (`JSONLogHandler`), for log shippers.
    case json
}
