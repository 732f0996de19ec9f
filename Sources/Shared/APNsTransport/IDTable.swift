/// A map from non-negative integer ids (stream ids, request ids) to values, for the connection's hot path: an
/// open-addressing table with linear probing, where `Dictionary` runs SipHash on every lookup (measured: its lookups
/// were 6-7% of the client's CPU per notification). The ids come in ascending order, `stride` apart, and leave
/// mostly oldest first, so an id's home is its own place in that sequence (id / stride, modulo the capacity): the
/// ids in flight sit side by side, each insert and removal touches the slot after the last one, and a straggler
/// costs the ids that wrap onto it one probe more. (A multiplicative hash scattered them: with 500 streams per
/// connection its probes missed the cache, 7% of a worker's CPU in a fan-out, `perf record`.) Runs are kept in
/// Robin Hood order, so a lookup stops at the first entry nearer its home than the id would be, and a removal's
/// shift at the first entry at its home, instead of scanning the whole run of ids in flight (which side by side is
/// one run). Probes read only the ids, never copy a value. Deletion shifts later entries back (no tombstones), so a
/// table that stays the same size never degrades. Pure; unit-tested against `Dictionary`.
struct IDTable<Value> {
    /// -1: empty.
    private var keys: [Int]
    private var values: [Value?]
    /// log2 of the capacity.
    private var bits: Int
    /// log2 of the step between consecutive ids (HTTP/2 stream ids a client opens step by 2).
    private let strideBits: Int
    private(set) var count = 0

    /// `stride`: the step between consecutive ids, a power of two.
    init(capacity: Int = 64, stride: Int = 1) {
        precondition(stride > 0 && stride & (stride - 1) == 0, "the stride is a power of two")
        var bits = 3
        while 1 << bits < capacity * 2 { bits += 1 }
        self.bits = bits
        self.strideBits = stride.trailingZeroBitCount
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
        if let index = self.index(of: id) {
            self.values[index] = value
            return
        }
        // Robin Hood: an entry nearer its home than the one being placed gives its slot up and moves on, so every
        // run is ordered by distance from home, which lets lookups and removals stop early.
        var (id, value, distance) = (id, Optional(value), 0)
        var index = self.home(id)
        while self.keys[index] >= 0 {
            let theirs = self.distance(at: index)
            if theirs < distance {
                swap(&id, &self.keys[index])
                swap(&value, &self.values[index])
                distance = theirs
            }
            index = (index + 1) & self.mask
            distance += 1
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
        // Backward shift: the entries after the hole that are away from home move one slot back, up to the first
        // empty slot or entry at home (with ids side by side, usually the next slot: the shift is over at once).
        var index = (hole + 1) & self.mask
        while self.keys[index] >= 0 && self.distance(at: index) > 0 {
            self.keys[hole] = self.keys[index]
            self.values[hole] = self.values[index].take()
            self.keys[index] = -1
            hole = index
            index = (index + 1) & self.mask
        }
        return removed
    }

    private var mask: Int { self.keys.count - 1 }

    private func home(_ id: Int) -> Int {
        (id >> self.strideBits) & self.mask
    }

    /// How far the entry at `index` sits from its home.
    private func distance(at index: Int) -> Int {
        (index - self.home(self.keys[index])) & self.mask
    }

    private func index(of id: Int) -> Int? {
        var index = self.home(id)
        var distance = 0
        // Runs are ordered by distance from home: an entry nearer its home than `id` would be means `id` is absent.
        while self.keys[index] >= 0 && self.distance(at: index) >= distance {
            if self.keys[index] == id { return index }
            index = (index + 1) & self.mask
            distance += 1
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
