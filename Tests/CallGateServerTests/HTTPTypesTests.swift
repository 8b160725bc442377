import CallGateServer
import Foundation
import Testing

@Suite struct HTTPTypesTests {
    @Test func methodNamesRoundTripAndAreCaseSensitive() {
        for name in ["GET", "PUT", "POST", "DELETE", "PATCH", "get"] {
            #expect(HTTPMethod(name).name == name)
        }
        #expect(HTTPMethod("GET") == .get)
        #expect(HTTPMethod("get") == .other("get"))
    }

    @Test func requestHeaderNamesAreLowercased() {
        let request = HTTPRequest(method: .get, path: "/", headers: ["Content-Type": "a", "X-ONE": "b"])
        #expect(request.headers == ["content-type": "a", "x-one": "b"])
    }

    @Test func errorResponseHasTheContractBody() throws {
        let response = HTTPResponse.error(400, .badRequest, "name: expected string", headers: [("X-A", "1")])
        #expect(response.status == 400)
        #expect(response.contentType == "application/json")
        #expect(response.header("x-a") == "1")
        #expect(String(decoding: response.body, as: UTF8.self) == #"{"error":{"code":"ERR_BAD_REQUEST","message":"name: expected string"}}"#)
    }

    @Test func jsonResponseThatCannotBeEncodedIs500() throws {
        let response = HTTPResponse.json(200, ["x": Double.nan])
        #expect(response.status == 500)
        let body = try JSONDecoder().decode(HTTPErrorBody.self, from: Data(response.body))
        #expect(body.error.code == .internalError)
    }

    @Test func noContentHasNoBody() {
        #expect(HTTPResponse.noContent.status == 204)
        #expect(HTTPResponse.noContent.body.isEmpty)
        #expect(HTTPResponse.noContent.contentType == nil)
    }
}
