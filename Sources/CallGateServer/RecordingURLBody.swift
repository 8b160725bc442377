import Foundation

/// The body of `POST /v1/calls/{sessionId}/recordings/{rid}`: `{"recordingUrl", "startedAt"?}`.
/// Unknown fields are ignored.
struct RecordingURLBody: Decodable {
    /// The longest URL accepted, in UTF-8 bytes.
    static let maxURLLength = 2048

    /// Where the recorded file can be fetched: an http or https URL.
    var recordingUrl: String
    /// When the recording started (Unix seconds, its `startedAt` in the call log): picks the
    /// meeting when a meeting id held several with a recording of this id.
    var startedAt: Int64?

    /// Throws unless `recordingUrl` is an absolute http(s) URL of at most `maxURLLength` bytes.
    func validate() throws(FieldError) {
        guard recordingUrl.utf8.count <= Self.maxURLLength,
              let url = URL(string: recordingUrl),
              let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https",
              url.host?.isEmpty == false
        else {
            throw FieldError(field: "recordingUrl", rule: "expected an http or https URL of at most \(Self.maxURLLength) bytes")
        }
        if let startedAt, startedAt < 0 {
            throw FieldError(field: "startedAt", rule: "expected Unix seconds, 0 or more")
        }
    }
}
