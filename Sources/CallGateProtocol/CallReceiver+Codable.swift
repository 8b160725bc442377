extension CallReceiver: Codable {
    private enum ProbeKeys: String, CodingKey {
        case guid
    }

    /// Reads a Group when the object has a `guid` key, else a User.
    public init(from decoder: any Decoder) throws {
        let probe = try decoder.container(keyedBy: ProbeKeys.self)
        if probe.contains(.guid) {
            self = .group(try Group(from: decoder))
        } else {
            self = .user(try User(from: decoder))
        }
    }

    /// Writes the bare User or Group object.
    public func encode(to encoder: any Encoder) throws {
        switch self {
        case .user(let user):
            try user.encode(to: encoder)
        case .group(let group):
            try group.encode(to: encoder)
        }
    }
}
