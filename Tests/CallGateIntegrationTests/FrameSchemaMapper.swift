import CallGateClient
import Foundation

/// One frame or HTTP body with the proto/ schema it must match.
struct SchemaLine {
    let schema: String
    let json: Data
}

/// Names the schema of each recorded frame: requests by op, replies by the op of the request
/// with the same id, pushes by event.
enum FrameSchemaMapper {
    static func lines(for frames: [(direction: FrameRecorder.Direction, frame: Data)]) throws -> [SchemaLine] {
        var opsByID: [String: String] = [:]
        var lines: [SchemaLine] = []
        for (direction, frame) in frames {
            guard let object = try? JSONSerialization.jsonObject(with: frame) as? [String: Any] else {
                continue
            }
            switch direction {
            case .sent:
                guard let op = object["op"] as? String else { continue }
                if let id = object["id"] as? String { opsByID[id] = op }
                lines.append(SchemaLine(schema: "request.\(op)", json: frame))
            case .received:
                if let event = object["event"] as? String {
                    lines.append(SchemaLine(schema: "event.\(event)", json: frame))
                } else if object["error"] != nil {
                    lines.append(SchemaLine(schema: "error", json: frame))
                } else if let id = object["id"] as? String, let op = opsByID[id] {
                    lines.append(SchemaLine(schema: "result.\(op)", json: frame))
                } else {
                    lines.append(SchemaLine(schema: "unmatched-reply", json: frame))
                }
            }
        }
        return lines
    }
}

/// HTTP request and response bodies, each with its schema.
struct HTTPBodyLog {
    private(set) var lines: [SchemaLine] = []

    mutating func record(_ schema: String, request: String) {
        lines.append(SchemaLine(schema: schema, json: Data(request.utf8)))
    }

    mutating func record(_ schema: String, response: Data) {
        lines.append(SchemaLine(schema: schema, json: response))
    }
}
