@testable import CallGateServer
import Testing

@Suite("Allowed origins")
struct OriginPolicyTests {
    @Test func anEmptyListAllowsEveryOrigin() {
        let policy = OriginPolicy(allowedOrigins: [])
        #expect(policy.allows("https://anywhere.example"))
        #expect(policy.allows(nil))
    }

    @Test func onlyListedOriginsAreAllowed() {
        let policy = OriginPolicy(allowedOrigins: ["https://app.example.com", "http://localhost:3000"])
        #expect(policy.allows("https://app.example.com"))
        #expect(policy.allows("http://localhost:3000"))
        #expect(!policy.allows("https://evil.example.com"))
        #expect(!policy.allows("http://app.example.com"))
        #expect(!policy.allows("https://app.example.com:8443"))
        #expect(!policy.allows("null"))
    }

    @Test func anUpgradeWithoutOriginIsAlwaysAllowed() {
        #expect(OriginPolicy(allowedOrigins: ["https://app.example.com"]).allows(nil))
    }

    @Test func originsCompareCaseInsensitivelyWithoutATrailingSlash() {
        let policy = OriginPolicy(allowedOrigins: ["https://App.Example.com/"])
        #expect(policy.allows("https://app.example.com"))
        #expect(policy.allows("HTTPS://APP.EXAMPLE.COM"))
    }
}
