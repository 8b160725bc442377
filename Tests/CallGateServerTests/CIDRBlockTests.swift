@testable import CallGateServer
import Testing

/// Parsing networks and testing membership, IPv4 and IPv6.
@Suite struct CIDRBlockTests {
    @Test func anIPv4NetworkHoldsItsAddressesAndNoOthers() throws {
        let block = try CIDRBlock("10.1.0.0/16")
        #expect(block.contains(try #require(IPAddress("10.1.0.0"))))
        #expect(block.contains(try #require(IPAddress("10.1.255.254"))))
        #expect(!block.contains(try #require(IPAddress("10.2.0.1"))))
        #expect(!block.contains(try #require(IPAddress("11.1.0.1"))))
    }

    @Test func prefixesThatEndInsideAByteCompareOnlyTheirBits() throws {
        let block = try CIDRBlock("192.168.1.64/27")
        #expect(block.contains(try #require(IPAddress("192.168.1.95"))))
        #expect(!block.contains(try #require(IPAddress("192.168.1.96"))))
        #expect(!block.contains(try #require(IPAddress("192.168.1.63"))))
    }

    @Test func aBareAddressIsANetworkOfOne() throws {
        let v4 = try CIDRBlock("127.0.0.1")
        #expect(v4.prefixLength == 32)
        #expect(v4.contains(try #require(IPAddress("127.0.0.1"))))
        #expect(!v4.contains(try #require(IPAddress("127.0.0.2"))))
        let v6 = try CIDRBlock("::1")
        #expect(v6.prefixLength == 128)
        #expect(v6.contains(try #require(IPAddress("0:0:0:0:0:0:0:1"))))
    }

    @Test func ipv6NetworksMatchIPv6AddressesOnly() throws {
        let block = try CIDRBlock("2001:db8::/32")
        #expect(block.contains(try #require(IPAddress("2001:db8:ffff::7"))))
        #expect(!block.contains(try #require(IPAddress("2001:db9::7"))))
        #expect(!block.contains(try #require(IPAddress("32.1.13.184"))))
        #expect(try CIDRBlock("::/0").contains(try #require(IPAddress("fe80::1"))))
        #expect(!(try CIDRBlock("::/0")).contains(try #require(IPAddress("10.0.0.1"))))
    }

    @Test func anIPv4MappedPeerMatchesIPv4Networks() throws {
        let mapped = try #require(IPAddress("::ffff:127.0.0.1"))
        #expect(mapped.isIPv4)
        #expect(mapped.description == "127.0.0.1")
        #expect(try CIDRBlock("127.0.0.0/8").contains(mapped))
    }

    @Test func hostBitsAreClearedAndShownCanonically() throws {
        #expect(try CIDRBlock("10.9.8.7/8").description == "10.0.0.0/8")
        #expect(try CIDRBlock(" 2001:DB8:0:0::1/48 ").description == "2001:db8::/48")
        #expect(try CIDRBlock("0.0.0.0/0").contains(try #require(IPAddress("203.0.113.9"))))
    }

    @Test(arguments: ["", "10.0.0.0/33", "::/129", "10.0.0.0/", "10.0.0.0/+8", "10.0.0/8", "localhost", "10.0.0.0/8/8", "1.2.3.4:80"])
    func malformedNetworksAreRefusedWithTheirText(_ text: String) {
        #expect(throws: CIDRBlock.ParseError.self) { try CIDRBlock(text) }
    }
}
