@testable import CallGateServer
import Testing

/// Which endpoint URLs are accepted, and the origin the web demo's policy allows for one.
@Suite struct WebhookURLTests {
    @Test func onlyHTTPAndHTTPSWithAHostAndNoCredentials() {
        #expect(WebhookURL.problem("https://backend.example.com/hooks") == nil)
        #expect(WebhookURL.problem("http://127.0.0.1:9000/webhooks?app=1") == nil)
        #expect(WebhookURL.problem("ftp://example.com/") != nil)
        #expect(WebhookURL.problem("https:///path") != nil)
        #expect(WebhookURL.problem("https://user:pass@example.com/") != nil)
        #expect(WebhookURL.problem("https://example.com/#top") != nil)
        #expect(WebhookURL.problem("https://example.com/" + String(repeating: "a", count: 2048)) != nil)
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
