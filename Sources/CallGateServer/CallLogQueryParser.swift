import CallGateCore
import CallGateProtocol
import Foundation

/// Reads the query items of `GET /v3.0/calls` into a `CallLogListRequest`, naming the parameter
/// in every error. Unknown parameters are ignored (SDKs send their own); a known one given twice
/// or empty is an error. A `cursor` wins over `page`. Any thread.
enum CallLogQueryParser {
    /// The largest `perPage`.
    static let maxPerPage = 100
    /// The largest `page`, so offsets stay far from overflow.
    static let maxPage = 1_000_000

    /// The request the query `items` describe.
    static func parse(_ items: [String]) throws(FieldError) -> CallLogListRequest {
        let values = try pairs(items)
        var request = CallLogListRequest()
        if let text = values["perPage"] {
            request.perPage = try integer(text, field: "perPage", in: 1...maxPerPage)
        }
        if let text = values["page"] {
            request.position = .page(try integer(text, field: "page", in: 1...maxPage))
        }
        if let text = values["cursor"] {
            guard let cursor = CallLogCursor(encoded: text) else {
                throw FieldError(field: "cursor", rule: "not a cursor this API returned")
            }
            request.position = .cursor(cursor)
        }
        request.filter.category = try values["mode"].map { text throws(FieldError) in try choice(text, field: "mode") }
        request.filter.callType = try values["type"].map { text throws(FieldError) in try choice(text, field: "type") }
        request.filter.status = try values["status"].map { text throws(FieldError) in try choice(text, field: "status") }
        request.filter.direction = try values["direction"].map { text throws(FieldError) in
            try choice(text, field: "direction")
        }
        if let text = values["hasRecording"] {
            switch text {
            case "1", "true": request.filter.hasRecording = true
            case "0", "false": request.filter.hasRecording = false
            default: throw FieldError(field: "hasRecording", rule: "expected 1 or 0")
            }
        }
        request.filter.withUser = try values["uid"].map { text throws(FieldError) in
            try FieldError.checkID(text, field: "uid")
            return text
        }
        request.filter.group = try values["guid"].map { text throws(FieldError) in
            try FieldError.checkID(text, field: "guid")
            return text
        }
        return request
    }

    /// The known parameters of `items` (decoded already, see `HTTPRequest.queryItems`); unknown
    /// ones are skipped.
    private static func pairs(_ items: [String]) throws(FieldError) -> [String: String] {
        let known: Set = ["page", "perPage", "cursor", "mode", "type", "status", "direction", "hasRecording", "uid", "guid"]
        var values: [String: String] = [:]
        for item in items {
            let parts = item.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = String(parts[0])
            guard known.contains(name) else { continue }
            guard parts.count == 2, !parts[1].isEmpty else {
                throw FieldError(field: name, rule: "must have a value")
            }
            guard values.updateValue(String(parts[1]), forKey: name) == nil else {
                throw FieldError(field: name, rule: "given more than once")
            }
        }
        return values
    }

    private static func integer(_ text: String, field: String, in range: ClosedRange<Int>) throws(FieldError) -> Int {
        guard let value = Int(text), range.contains(value) else {
            throw FieldError(field: field, rule: "expected an integer from \(range.lowerBound) to \(range.upperBound)")
        }
        return value
    }

    private static func choice<Value: RawRepresentable & CaseIterable>(
        _ text: String, field: String
    ) throws(FieldError) -> Value where Value.RawValue == String {
        guard let value = Value(rawValue: text) else {
            let allowed = Value.allCases.map(\.rawValue).joined(separator: ", ")
            throw FieldError(field: field, rule: "expected one of \(allowed)")
        }
        return value
    }
}
