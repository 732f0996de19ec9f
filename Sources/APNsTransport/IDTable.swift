/// A map from non-negative integer ids (stream ids, request ids) to values, for the connection's hot path: the
/// ids are small and come mostly in ascending order, so a multiplicative hash into an open-addressing table with
/// linear probing finds them in a probe or two, where `Dictionary` runs SipHash on every lookup (measured: its
/// lookups were 6-7% of the client's CPU per notification). Probes read only the ids, never copy a value. Deletion
/// shifts later entries back (no tombstones), so a table that stays the same size never degrades. Pure;
/// unit-tested against `Dictionary`.
struct IDTable<Value> {
    /// -1: empty.
    private var keys: [Int]
    private var values: [Value?]
    /// log2 of the capacity.
    private var bits: Int
    private(set) var count = 0

    init(capacity: Int = 64) {
        var bits = 3
        while 1 << bits < capacity * 2 { bits += 1 }
        self.bits = bits
        self.keys = Array(repeating: -1, count: 1 << bits)
        self.values = Array(repeating: nil, count: 1 << bits)
    }

    var isEmpty: Bool { self.count == 0 }

    /// The ids in the table, in no particular order.
    var ids: [Int] { self.keys.filter { $0 >= 0 } }

    /// The ids whose values match, in no particular order.
    func ids(where matches: (Value) -> Bool) -> [Int] {
        var found: [Int] = []
        for (index, id) in self.keys.enumerated() where id >= 0 && matches(self.values[index]!) { found.append(id) }
        return found
    }

    subscript(id: Int) -> Value? {
        get { self.index(of: id).flatMap { self.values[$0] } }
        set {
            if let newValue { self.insert(newValue, for: id) } else { self.removeValue(for: id) }
        }
    }

    /// Changes the value in place (no copy out and back); nil when the id is absent.
    @discardableResult
    mutating func update<Result>(_ id: Int, _ change: (inout Value) -> Result) -> Result? {
        guard let index = self.index(of: id) else { return nil }
        return change(&self.values[index]!)
    }

    mutating func insert(_ value: Value, for id: Int) {
        precondition(id >= 0, "ids are non-negative")
        var index = self.home(id)
        while self.keys[index] >= 0 {
            if self.keys[index] == id {
                self.values[index] = value
                return
            }
            index = (index + 1) & self.mask
        }
        self.keys[index] = id
        self.values[index] = value
        self.count += 1
        if self.count * 2 > self.keys.count { self.grow() }
    }

    @discardableResult
    mutating func removeValue(for id: Int) -> Value? {
        guard var hole = self.index(of: id) else { return nil }
        let removed = self.values[hole].take()
        self.keys[hole] = -1
        self.count -= 1
        // Backward shift: move up each later entry of the run whose home is not between the hole and it.
        var index = (hole + 1) & self.mask
        while self.keys[index] >= 0 {
            let home = self.home(self.keys[index])
            let stays = hole <= index ? (hole < home && home <= index) : (hole < home || home <= index)
            if !stays {
                self.keys[hole] = self.keys[index]
                self.values[hole] = self.values[index].take()
                self.keys[index] = -1
                hole = index
            }
            index = (index + 1) & self.mask
        }
        return removed
    }

    private var mask: Int { self.keys.count - 1 }

    private func home(_ id: Int) -> Int {
        Int(truncatingIfNeeded: (UInt64(truncatingIfNeeded: id) &* 0x9E37_79B9_7F4A_7C15) >> UInt64(64 - self.bits))
    }

    private func index(of id: Int) -> Int? {
        var index = self.home(id)
        while self.keys[index] >= 0 {
            if self.keys[index] == id { return index }
            index = (index + 1) & self.mask
        }
        return nil
    }

    private mutating func grow() {
        let (keys, values) = (self.keys, self.values)
        self.bits += 1
        self.keys = Array(repeating: -1, count: 1 << self.bits)
        self.values = Array(repeating: nil, count: 1 << self.bits)
        self.count = 0
        for (index, id) in keys.enumerated() where id >= 0 { self.insert(values[index]!, for: id) }
    }
}
