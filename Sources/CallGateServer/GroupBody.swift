/// The body of `PUT /v1/groups/{guid}`: `{"name", "icon"?, "members": [uid]}`. Unknown fields are ignored.
struct GroupBody: Decodable {
    var name: String
    var icon: String?
    var members: [String]

    /// Throws unless `name` and every member uid are valid.
    func validate() throws(FieldError) {
        try FieldError.checkName(name, field: "name")
        if let icon {
            try FieldError.checkPicture(icon, field: "icon")
        }
        for (index, uid) in members.enumerated() {
            try FieldError.checkID(uid, field: "members[\(index)]")
        }
    }
}
