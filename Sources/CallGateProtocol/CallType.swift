/// Whether a call carries audio only or audio and video.
public enum CallType: String, Codable, Hashable, Sendable, CaseIterable {
    /// Voice only.
    case audio
    /// Voice and video.
    case video
}
