/// Open WebSockets, in total and per client address, against their caps. Pure; the gateway
/// keeps one on its service thread.
struct ConnectionCounts {
    let maxTotal: Int
    let maxPerAddress: Int
    private(set) var total = 0
    private var perAddress: [String: Int] = [:]

    init(maxTotal: Int, maxPerAddress: Int) {
        self.maxTotal = maxTotal
        self.maxPerAddress = maxPerAddress
    }

    /// Sockets open from `address`.
    func count(for address: String) -> Int {
        perAddress[address, default: 0]
    }

    /// The cap one more socket from `address` would pass (the process's first), nil when it fits.
    func limitReached(by address: String) -> LimitEvent? {
        if total >= maxTotal { return .serverFull }
        if count(for: address) >= maxPerAddress { return .addressFull }
        return nil
    }

    mutating func opened(_ address: String) {
        total += 1
        perAddress[address, default: 0] += 1
    }

    /// Forgets one socket of `address`; an address with none left is dropped from the table.
    mutating func closed(_ address: String) {
        guard let count = perAddress[address] else { return }
        total -= 1
        perAddress[address] = count > 1 ? count - 1 : nil
    }
}
