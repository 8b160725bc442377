import CallGateCore
@testable import CallGateServer
import Testing

/// The leases of other nodes' devices: renewed only by the node that holds each, lapsed after
/// `lease` without a renewal by the time this node last heard its channel, and judged only once
/// it has heard the bus for a whole lease.
@Suite struct RemoteDevicesTests {
    let lease = RemoteDevices.lease.wholeMilliseconds
    let phone = ConnectionID(1)
    let tablet = ConnectionID(2)

    @Test func aDeviceLapsesALeaseAfterItsLastRenewalByItsOwnNode() {
        var devices = RemoteDevices()
        devices.admit(phone, of: "b", now: 0)
        devices.admit(tablet, of: "c", now: 0)
        let unknown = devices.renew([phone, tablet, ConnectionID(3)], from: "b", now: 3000)
        #expect(unknown == [ConnectionID(3)], "b should announce it again; c's tablet is not b's to renew")
        let early = devices.removeLapsed(heardAt: lease, hearingSince: 0)
        let first = devices.removeLapsed(heardAt: lease + 1, hearingSince: 0)
        #expect(early.isEmpty)
        #expect(first == [tablet], "node b does not speak for c's device")
        #expect(devices[phone] == "b" && devices[tablet] == nil)
        let second = devices.removeLapsed(heardAt: 3000 + lease + 1, hearingSince: 0)
        #expect(second == [phone])
        #expect(devices.isEmpty)
    }

    @Test func nothingLapsesUntilThisNodeHeardTheBusForAWholeLease() {
        var devices = RemoteDevices()
        devices.admit(phone, of: "b", now: 0)
        let deaf = devices.removeLapsed(heardAt: 10 * lease, hearingSince: nil)
        let justBack = devices.removeLapsed(heardAt: 10 * lease, hearingSince: 9 * lease + 1)
        let heard = devices.removeLapsed(heardAt: 10 * lease, hearingSince: 9 * lease)
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
        let unknown = devices.renew([ConnectionID(9)], from: "c", now: 1)
        #expect(devices[ConnectionID(9)] == nil && unknown == [ConnectionID(9)], "a renewal admits nothing")
    }
}
