@testable import CallGateServer
import Testing

/// Finding the client's address behind trusted proxies, and refusing to be fooled by the rest.
@Suite struct TrustedProxiesTests {
    let proxies: TrustedProxies

    init() throws {
        proxies = try TrustedProxies(["127.0.0.1/32", "10.0.0.0/8", "fd00::/8"])
    }

    @Test func withoutTrustedProxiesThePeerIsTheClientWhateverTheHeaderSays() {
        #expect(TrustedProxies().clientAddress(peer: "127.0.0.1", forwardedFor: "203.0.113.9") == "127.0.0.1")
    }

    @Test func anUntrustedPeerIsTheClientAndItsHeaderIsIgnored() {
        #expect(proxies.clientAddress(peer: "198.51.100.4", forwardedFor: "203.0.113.9") == "198.51.100.4")
    }

    @Test func aTrustedPeerWithoutTheHeaderIsTheClient() {
        #expect(proxies.clientAddress(peer: "127.0.0.1", forwardedFor: nil) == "127.0.0.1")
    }

    @Test func aTrustedPeerNamesTheClientInTheHeader() {
        #expect(proxies.clientAddress(peer: "127.0.0.1", forwardedFor: "203.0.113.9") == "203.0.113.9")
        #expect(proxies.clientAddress(peer: "fd00::5", forwardedFor: "2001:db8::9") == "2001:db8::9")
    }

    @Test func theRightMostUntrustedHopWinsOverWhatTheClientPrepended() {
        // The client sent "X-Forwarded-For: 192.0.2.66"; our proxies appended the rest.
        let header = "192.0.2.66, 203.0.113.9, 10.1.2.3"
        #expect(proxies.clientAddress(peer: "127.0.0.1", forwardedFor: header) == "203.0.113.9")
    }

    @Test func whenEveryHopIsTrustedTheLeftMostIsTheClient() {
        #expect(proxies.clientAddress(peer: "127.0.0.1", forwardedFor: "10.0.0.7,10.0.0.8") == "10.0.0.7")
    }

    @Test func garbageStopsTheWalkAtTheLastTrustedHop() {
        #expect(proxies.clientAddress(peer: "127.0.0.1", forwardedFor: "203.0.113.9, unknown, 10.0.0.8") == "10.0.0.8")
        #expect(proxies.clientAddress(peer: "127.0.0.1", forwardedFor: "not-an-ip") == "127.0.0.1")
        #expect(proxies.clientAddress(peer: "127.0.0.1", forwardedFor: " , ") == "127.0.0.1")
    }

    @Test func entriesWithPortsAndBracketsAreUnderstoodAndLoggedCanonically() {
        #expect(proxies.clientAddress(peer: "127.0.0.1", forwardedFor: "203.0.113.9:4711") == "203.0.113.9")
        #expect(proxies.clientAddress(peer: "127.0.0.1", forwardedFor: "[2001:DB8::9]:4711") == "2001:db8::9")
        #expect(proxies.clientAddress(peer: "127.0.0.1", forwardedFor: "[2001:db8::9]") == "2001:db8::9")
        #expect(proxies.clientAddress(peer: "127.0.0.1", forwardedFor: "[2001:db8::9]x") == "127.0.0.1")
        #expect(proxies.clientAddress(peer: "127.0.0.1", forwardedFor: "203.0.113.9:port") == "127.0.0.1")
    }

    @Test func anIPv4MappedPeerIsTrustedByItsIPv4Network() {
        #expect(proxies.clientAddress(peer: "::ffff:127.0.0.1", forwardedFor: "203.0.113.9") == "203.0.113.9")
    }

    @Test func anUnreadablePeerIsReturnedAsItIs() {
        #expect(proxies.clientAddress(peer: "", forwardedFor: "203.0.113.9") == "")
    }

    @Test func aBadEntryIsNamedInTheError() throws {
        let error = #expect(throws: CIDRBlock.ParseError.self) { try TrustedProxies(["10.0.0.0/8", "10.0.0.0/99"]) }
        #expect(error?.description.contains("10.0.0.0/99") == true)
        #expect(try TrustedProxies(["127.0.0.1/32", "::1"]).networks == ["127.0.0.1/32", "::1/128"])
    }
}
