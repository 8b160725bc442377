/// The body of `POST /v1/tokens`: `{"uid", "name"?, "avatar"?, "ttl"?}`. Unknown fields are ignored.
struct TokenBody: Decodable {
    var uid: String
    var name: String?
    var avatar: String?
    var ttl: Int?

    private enum CodingKeys: String, CodingKey {
        case uid, name, avatar, ttl
    }

    /// Decodes `ttl` as a number and then requires an integer: Foundation's decoder on Linux
    /// reports `1.5` or `1e30` for an `Int` as invalid JSON with no field, which would not say
    /// which field is wrong.
    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        uid = try container.decode(String.self, forKey: .uid)
        name = try container.decodeIfPresent(String.self, forKey: .name)
        avatar = try container.decodeIfPresent(String.self, forKey: .avatar)
        let notAnInteger = DecodingError.typeMismatch(
            Int.self, .init(codingPath: container.codingPath + [CodingKeys.ttl], debugDescription: "not an integer"))
        let number: Double?
        do {
            number = try container.decodeIfPresent(Double.self, forKey: .ttl)
        } catch DecodingError.typeMismatch {
            throw notAnInteger
        }
        ttl = try number.map { number in
            guard let integer = Int(exactly: number) else { throw notAnInteger }
            return integer
        }
    }

    /// The validated request.
    func validated() throws(FieldError) -> TokenRequest {
        try TokenRequest(uid: uid, name: name, avatar: avatar, ttl: ttl)
    }
}
