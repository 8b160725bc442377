@testable import CallGateServer
import Foundation
import Testing

/// Signing as the Standard Webhooks specification's own test vector has it.
@Suite struct WebhookSignatureTests {
    @Test func theSpecificationsVector() {
        let header = WebhookSignature.header(
            id: "msg_p5jXN8AQM9LWM0D4loKWxJek", timestamp: 1_614_265_330, body: Data(#"{"test": 2432232314}"#.utf8),
            secrets: ["whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"])
        #expect(header == "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=")
    }

    @Test func everyValidSecretSignsAndOthersAreSkipped() {
        let secrets = [WebhookSignature.makeSecret(), "whsec_short", "nope", "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"]
        let header = WebhookSignature.header(id: "msg_1", timestamp: 1, body: Data(), secrets: secrets)
        #expect(header.split(separator: " ").count == 2)
        #expect(header.split(separator: " ").allSatisfy { $0.hasPrefix("v1,") })
    }

    @Test func secretsAreWhsecAndTwentyFourToSixtyFourBytes() {
        #expect(WebhookSignature.key(of: WebhookSignature.makeSecret()) != nil)
        #expect(WebhookSignature.key(of: "whsec_" + Data(count: 23).base64EncodedString()) == nil)
        #expect(WebhookSignature.key(of: "whsec_" + Data(count: 64).base64EncodedString()) != nil)
        #expect(WebhookSignature.key(of: "whsec_" + Data(count: 65).base64EncodedString()) == nil)
        #expect(WebhookSignature.key(of: Data(count: 32).base64EncodedString()) == nil)
        #expect(WebhookSignature.key(of: "whsec_!!!!") == nil)
    }
}
