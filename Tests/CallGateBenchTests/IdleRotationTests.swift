@testable import CallGateBench
import Testing

/// Units are taken in turn, the ones not ready go to the back, and busy ones are counted.
@Suite struct IdleRotationTests {
    @Test func unitsAreTakenInTurnAndComeBackAtTheEnd() {
        var rotation = IdleRotation(count: 3)
        #expect(rotation.take { _ in true } == 0)
        #expect(rotation.take { _ in true } == 1)
        rotation.giveBack(0)
        #expect(rotation.take { _ in true } == 2)
        #expect(rotation.take { _ in true } == 0)
        #expect(rotation.busyCount == 3)
        #expect(rotation.take { _ in true } == nil)
    }

    @Test func unitsThatAreNotReadyKeepTheirPlace() {
        var rotation = IdleRotation(count: 3)
        #expect(rotation.take { $0 == 2 } == 2)
        #expect(rotation.busyCount == 1)
        #expect(rotation.take { _ in false } == nil)
        #expect(rotation.take { _ in true } == 0)
        #expect(rotation.take { _ in true } == 1)
        rotation.giveBack(2)
        rotation.giveBack(0)
        rotation.giveBack(1)
        #expect(rotation.busyCount == 0)
    }
}
