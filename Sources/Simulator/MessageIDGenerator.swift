/// The `apns-id` the simulator answers with when the request had none: a random (version 4) UUID in lower case,
/// as APNs sends. Foundation's `UUID()` reads the system's random source on every call, which cost the simulator a
/// system call per answer; this draws from a generator seeded once per connection (the ids need to be unique, not
/// secret).
struct MessageIDGenerator {
    private var state: UInt64

    init<Source: RandomNumberGenerator>(seed source: inout Source) {
        self.state = source.next()
    }

    init() {
        var system = SystemRandomNumberGenerator()
        self.init(seed: &system)
    }

    /// SplitMix64 (Steele, Lea, Flood 2014).
    private mutating func next() -> UInt64 {
        self.state &+= 0x9E37_79B9_7F4A_7C15
        var z = self.state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    mutating func next() -> String {
        let high = (self.next() & ~0xF000) | 0x4000  // version 4: the first digit of the third group
        let low = (self.next() & ~(0xC << 60)) | (0x8 << 60)  // variant 10xx: the first digit of the fourth group
        let digits: StaticString = "0123456789abcdef"
        return String(unsafeUninitializedCapacity: 36) { out in
            var i = 0
            for nibble in 0..<32 {
                if nibble == 8 || nibble == 12 || nibble == 16 || nibble == 20 {
                    out[i] = UInt8(ascii: "-")
                    i += 1
                }
                let word = nibble < 16 ? high : low
                out[i] = digits.utf8Start[Int((word >> UInt64(60 - 4 * (nibble % 16))) & 0xF)]
                i += 1
            }
            return i
        }
    }
}
