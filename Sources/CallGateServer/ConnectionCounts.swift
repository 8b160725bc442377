/// Open connections, in total and per client address, against their caps. Pure; the gateway
/// keeps one on its service thread (in `AdmissionControl`, which decides what counts where).
struct ConnectionCounts {
    let maxTotal: Int
    let maxPerAddress: Int
    private(set) var total = 0
    private var perAddress: [String: Int] = [:]

    init(maxTotal: Int, maxPerAddress: Int) {
        self.maxTotal = maxTotal
        self.maxPerAddress = maxPerAddress
    }

    /// Connections counted under `address`.
    func count(for address: String) -> Int {
        perAddress[address, default: 0]
    }

    /// The cap one more connection would pass: the process's when it counts in the total (the
    /// process's is checked first), `address`'s when it is counted under one; nil when it fits.
    func limitReached(inTotal: Bool, address: String?) -> LimitEvent? {
        if inTotal, total >= maxTotal { return .serverFull }
        if let address, count(for: address) >= maxPerAddress { return .addressFull }
        return nil
    }

    /// Counts one more connection, in the total when `inTotal`, under `address` when given.
    mutating func add(inTotal: Bool, address: String?) {
        if inTotal { total += 1 }
        if let address { perAddress[address, default: 0] += 1 }
    }

    /// Forgets one connection counted with the same arguments; an address with none left is
    /// dropped from the table, and a count never goes below zero.
    mutating func remove(inTotal: Bool, address: String?) {
        if inTotal, total > 0 { total -= 1 }
        guard let address, let count = perAddress[address] else { return }
        perAddress[address] = count > 1 ? count - 1 : nil
    }
}
