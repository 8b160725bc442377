import ArgumentParser

/// How `serve` writes its log lines (`--log-format`, `CALLGATE_LOG_FORMAT`).
enum LogFormat: String, CaseIterable, ExpressibleByArgument {
    /// swift-log's own lines, for people.
    case text
    /// One JSON object per line (`JSONLogHandler`), for log shippers.
    case json
}
