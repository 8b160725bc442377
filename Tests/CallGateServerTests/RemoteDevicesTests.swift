import CallGateCore
@testable import CallGateServer
import Testing

/// The leases of other nodes' devices: renewed only by the node that holds each, lapsed after
/// `lease` without a renewal, and judged only once this node has heard the bus for a whole lease.
@Suite struct RemoteDevicesTests {
    let lease = RemoteDevices.lease.wholeMilliseconds
    let phone = ConnectionID(1)
    let tablet = ConnectionID(2)

    @Test func aDeviceLapsesALeaseAfterItsLastRenewalByItsOwnNode() {
        var devices = RemoteDevices()
        devices.admit(phone, of: "b", now: 0)
        devices.admit(tablet, of: "c", now: 0)
        devices.renew([phone, tablet], from: "b", now: 3000)
        let early = devices.removeLapsed(now: lease, hearingSince: 0)
        let first = devices.removeLapsed(now: lease + 1, hearingSince: 0)
        #expect(early.isEmpty)
        #expect(first == [tablet], "node b does not speak for c's device")
        #expect(devices[phone] == "b" && devices[tablet] == nil)
        let second = devices.removeLapsed(now: 3000 + lease + 1, hearingSince: 0)
        #expect(second == [phone])
        #expect(devices.isEmpty)
    }

    @Test func nothingLapsesUntilThisNodeHeardTheBusForAWholeLease() {
        var devices = RemoteDevices()
        devices.admit(phone, of: "b", now: 0)
        let deaf = devices.removeLapsed(now: 10 * lease, hearingSince: nil)
        let justBack = devices.removeLapsed(now: 10 * lease, hearingSince: 9 * lease + 1)
        let heard = devices.removeLapsed(now: 10 * lease, hearingSince: 9 * lease)
        #expect(deaf.isEmpty, "the subscription is down")
        #expect(justBack.isEmpty, "back for less than a lease")
        #expect(heard == [phone])
    }

    @Test func aDepartureOrTheNodeLeavingRemovesDevicesOnce() {
        var devices = RemoteDevices()
        devices.admit(phone, of: "b", now: 0)
        devices.admit(tablet, of: "b", now: 0)
        devices.admit(ConnectionID(3), of: "c", now: 0)
        let departed = devices.remove(phone)
        let departedAgain = devices.remove(phone)
        #expect(departed && !departedAgain, "a departure heard twice")
        let gone = devices.remove(heldBy: ["b", "d"])
        #expect(gone == [tablet])
        #expect(devices[ConnectionID(3)] == "c")
        devices.renew([ConnectionID(9)], from: "c", now: 1)
        #expect(devices[ConnectionID(9)] == nil, "a renewal admits nothing")
    }
}
