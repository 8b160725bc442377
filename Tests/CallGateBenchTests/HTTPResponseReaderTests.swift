import Testing

@testable import CallGateBench

@Suite struct HTTPResponseReaderTests {
    @Test func contentLengthResponseCompletesWithItsBody() {
        var reader = HTTPResponseReader()
        reader.append(Array("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 11\r\n\r\n{\"a\":".utf8))
        #expect(reader.status == 200)
        #expect(!reader.isComplete)
        reader.append(Array("\"bcd\"}".utf8))
        #expect(reader.isComplete)
        #expect(String(decoding: reader.body, as: UTF8.self) == "{\"a\":\"bcd\"}")
    }

    @Test func chunkedResponseIsJoined() {
        var reader = HTTPResponseReader()
        reader.append(Array("HTTP/1.1 401 Unauthorized\r\nTransfer-Encoding: chunked\r\n\r\n4\r\nabcd\r\n3\r\nefg\r\n0\r\n\r\n".utf8))
        #expect(reader.status == 401)
        #expect(reader.isComplete)
        #expect(String(decoding: reader.body, as: UTF8.self) == "abcdefg")
    }

    @Test func headersSplitAcrossReadsAreFound() {
        var reader = HTTPResponseReader()
        reader.append(Array("HTTP/1.1 204 No Content\r\nContent-Len".utf8))
        #expect(reader.status == nil)
        reader.append(Array("gth: 0\r\n\r\n".utf8))
        #expect(reader.status == 204)
        #expect(reader.isComplete)
        #expect(reader.body.isEmpty)
    }
}
