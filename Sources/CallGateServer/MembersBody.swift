/// The body of `POST /v1/groups/{guid}/members`: `{"uids": [uid]}`. Unknown fields are ignored.
struct MembersBody: Decodable {
    var uids: [String]

    /// Throws unless every uid is valid.
    func validate() throws(FieldError) {
        for (index, uid) in uids.enumerated() {
            try FieldError.checkID(uid, field: "uids[\(index)]")
        }
    }
}
