@testable import CallGateServer
import Testing

/// Which endpoint URLs are accepted, and the origin the web demo's policy allows for one.
@Suite struct WebhookURLTests {
    @Test func onlyHTTPAndHTTPSWithAHostAndNoCredentials() {
        let problem = { (url: String) in WebhookURL.problem(url, allowsPrivateNetworks: true) }
        #expect(problem("https://backend.example.com/hooks") == nil)
        #expect(problem("http://127.0.0.1:9000/webhooks?app=1") == nil)
        #expect(problem("ftp://example.com/") != nil)
        #expect(problem("https:///path") != nil)
        #expect(problem("https://user:pass@example.com/") != nil)
        #expect(problem("https://example.com/#top") != nil)
        #expect(problem("https://example.com/" + String(repeating: "a", count: 2048)) != nil)
    }

    @Test(arguments: [
        "http://127.0.0.1:25432/", "http://127.1/", "http://2130706433/", "http://0x7f000001/", "http://0.0.0.0/",
        "http://localhost:8080/", "http://api.localhost/", "http://10.1.2.3/", "http://172.20.0.1/", "http://192.168.1.1/",
        "http://169.254.169.254/latest/meta-data/", "http://100.100.100.200/", "http://[::1]/", "http://[fd00:ec2::254]/",
        "http://[fe80::1]/", "http://[::ffff:127.0.0.1]/", "http://[64:ff9b::a9fe:a9fe]/", "http://224.0.0.1/",
        "http://[fec0::1]/", "http://[64:ff9b:1::808:808]/", "http://[::ffff:0:a00:1]/",
    ])
    func anAddressInsideTheNetworkIsRefusedUnlessAllowed(url: String) throws {
        let problem = try #require(WebhookURL.problem(url, allowsPrivateNetworks: false))
        #expect(problem.contains("--webhook-allow-private-networks"))
        #expect(WebhookURL.problem(url, allowsPrivateNetworks: true) == nil)
    }

    @Test func publicAddressesAndNamesPass() {
        #expect(WebhookURL.problem("https://8.8.8.8/hooks", allowsPrivateNetworks: false) == nil)
        #expect(WebhookURL.problem("https://[2606:4700::1111]/hooks", allowsPrivateNetworks: false) == nil)
        #expect(WebhookURL.problem("https://backend.example.com/hooks", allowsPrivateNetworks: false) == nil)
    }

    @Test func theRouteReadsTheHostAsTheHTTPClientDoes() {
        #expect(WebhookRoute.host(of: "https://xn--bcher-kva.example/hooks") == "xn--bcher-kva.example")
        #expect(WebhookRoute.host(of: "http://[2606:4700::1111]:8080/") == "2606:4700::1111")
        #expect(WebhookRoute.host(of: "https://Backend.Example.com./x") == "Backend.Example.com.")
    }

    @Test func aNameIsCheckedWhereItResolves() throws {
        #expect(throws: WebhookAddressError.self) { try WebhookAddressRules.allowedAddress(of: "localhost") }
        #expect(WebhookAddressRules.forbiddenKind([8, 8, 8, 8]) == nil)
        #expect(WebhookAddressRules.forbiddenKind([127, 0, 0, 1]) == "loopback")
        #expect(WebhookAddressRules.forbiddenKind([0x20, 0x02, 192, 168, 0, 1] + Array(repeating: 0, count: 10)) == "private")
        #expect(WebhookAddressRules.text([169, 254, 169, 254]) == "169.254.169.254")
    }

    @Test func theOriginKeepsSchemeHostAndPortOnly() {
        #expect(WebhookURL.origin("http://127.0.0.1:9000/webhooks?x=1") == "http://127.0.0.1:9000")
        #expect(WebhookURL.origin("HTTPS://Backend.example.com/hooks") == "https://Backend.example.com")
        #expect(WebhookURL.origin("http://[::1]:9000/webhooks") == "http://[::1]:9000")
    }

    @Test func nothingThatCouldWidenAPolicyBecomesAnOrigin() {
        #expect(WebhookURL.origin("ftp://example.com/") == nil)
        #expect(WebhookURL.origin("http://exa%20mple.com/") == nil)
        #expect(WebhookURL.origin("http://a;b.com/") == nil)
        #expect(WebhookURL.origin("not a url") == nil)
    }
}
