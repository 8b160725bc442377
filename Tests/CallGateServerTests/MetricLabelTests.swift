@testable import CallGateServer
import Testing

/// The label values the metrics use for close codes and refused connects.
@Suite struct MetricLabelTests {
    @Test func theGatewaysOwnCloseCodeWins() {
        #expect(CloseCodeLabel.label(local: 4008, peer: 1000, peerSentClose: true) == "4008")
        #expect(CloseCodeLabel.label(local: 4029, peer: nil, peerSentClose: false) == "4029")
    }

    @Test func peerCodesOutsideTheStandardRangeAreOther() {
        #expect(CloseCodeLabel.label(local: nil, peer: 1000, peerSentClose: true) == "1000")
        #expect(CloseCodeLabel.label(local: nil, peer: 1015, peerSentClose: true) == "1015")
        #expect(CloseCodeLabel.label(local: nil, peer: 3000, peerSentClose: true) == "other")
        #expect(CloseCodeLabel.label(local: nil, peer: 4999, peerSentClose: true) == "other")
    }

    @Test func noCodeIs1005AndNoCloseFrameIs1006() {
        #expect(CloseCodeLabel.label(local: nil, peer: nil, peerSentClose: true) == "1005")
        #expect(CloseCodeLabel.label(local: nil, peer: nil, peerSentClose: false) == "1006")
    }

    @Test func everyVerificationFailureHasAReason() {
        let cases: [(TokenError, AuthFailureReason?)] = [
            (.malformed, .malformed), (.wrongAlgorithm, .wrongAlgorithm), (.badSignature, .badSignature),
            (.expired, .expired), (.missingSubject, .missingSubject), (.invalidSubject, .invalidSubject),
            (.invalidName, .invalidName), (.wrongKind, .wrongKind), (.invalidLifetime, nil),
        ]
        for (error, reason) in cases {
            #expect(AuthFailureReason(error) == reason)
        }
    }
}
