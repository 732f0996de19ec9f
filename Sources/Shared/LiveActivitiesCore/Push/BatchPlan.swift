import Foundation

/// How a push's targets are split into batch jobs: ranges of channel ids, each (previous boundary, boundary], the
/// first open below and the last open above, with the number of targets each held when the push fanned out, or
/// (`estimated`) would hold if the targets spread as evenly as the first ones did.
public struct BatchPlan: Sendable, Equatable {
    /// The upper bound of every batch but the last.
    public var boundaries: [UUID]
    /// Targets per batch, in order: one more entry than `boundaries` (none when there are no targets).
    public var sizes: [Int]
    /// The sizes are estimates: each batch counts its targets as it reads them.
    public var estimated: Bool

    public init(boundaries: [UUID], sizes: [Int], estimated: Bool = false) {
        precondition(sizes.isEmpty ? boundaries.isEmpty : sizes.count == boundaries.count + 1)
        self.boundaries = boundaries
        self.sizes = sizes
        self.estimated = estimated
    }

    public static let empty = BatchPlan(boundaries: [], sizes: [])

    public var total: Int { self.sizes.reduce(0, +) }

    /// Equal-width ranges of channel ids, as many as should hold about `batchSize` targets each, given that the first
    /// `sampled` targets in channel order reached `reach`. Channel ids are random (version 4) UUIDs, so targets spread
    /// evenly over the id space, and how far into it the first targets reached tells how many there are in all.
    /// Answers the range thresholds (none for a single range), at most `maxRanges` - 1 of them.
    public static func uniformThresholds(sampled: Int, reach: UUID, batchSize: Int, maxRanges: Int = 10_000)
        -> [UUID]
    {
        let fraction = Double(reach.high64) / 18_446_744_073_709_551_616.0
        guard sampled > 0, batchSize > 0, fraction > 0 else { return [] }
        let estimate = Double(sampled) / fraction
        // Clamped as a Double: a reach near zero makes an estimate beyond any Int.
        let ranges = Int(min(Double(maxRanges), max(1, (estimate / Double(batchSize)).rounded(.up))))
        let step = UInt64.max / UInt64(ranges)
        return (1..<ranges).map { UUID(high64: step * UInt64($0)) }
    }

    /// Equal-width ranges sized from the first targets in channel order (`sample`, ascending), with estimated sizes,
    /// when the sample looks like random ids: no pass over the audience to count them. Nil when the sample is too
    /// small to tell (under `minimumSample`) or its ids are not spread evenly up to its last one (a Kolmogorov-Smirnov
    /// distance above 2 / sqrt(n), which random ids exceed about once in 1,500 samples): ids that are not random
    /// (imported, time-ordered) would make some batches far larger than others, and are counted instead, as are
    /// estimates that need `maxRanges` ranges or more.
    public static func estimated(sample: [UUID], batchSize: Int, minimumSample: Int = 100, maxRanges: Int = 10_000)
        -> BatchPlan?
    {
        guard sample.count >= minimumSample, let reach = sample.last, reach.high64 > 0, batchSize > 0 else {
            return nil
        }
        let n = Double(sample.count)
        let top = Double(reach.high64)
        var distance = 0.0
        for (index, id) in sample.enumerated() {
            let position = Double(id.high64) / top
            distance = max(distance, abs(Double(index + 1) / n - position), abs(position - Double(index) / n))
        }
        guard distance <= 2 / n.squareRoot() else { return nil }
        let thresholds = Self.uniformThresholds(
            sampled: sample.count, reach: reach, batchSize: batchSize, maxRanges: maxRanges)
        // As many ranges as allowed: more targets than the ranges can hold at `batchSize`; counted, not guessed.
        guard thresholds.count < maxRanges - 1 else { return nil }
        let estimate = n / (top / 18_446_744_073_709_551_616.0)
        let size = max(1, Int((estimate / Double(thresholds.count + 1)).rounded()))
        return BatchPlan(
            boundaries: thresholds, sizes: Array(repeating: size, count: thresholds.count + 1), estimated: true)
    }

    /// The plan from the number of targets in each range over `thresholds` (`counts[j]`: targets with exactly `j`
    /// thresholds below their channel id). An empty range joins the batch after it (the last one, the batch before),
    /// so every batch has targets and the ranges still cover every channel id.
    public static func merging(thresholds: [UUID], counts: [Int: Int]) -> BatchPlan {
        var boundaries: [UUID] = []
        var sizes: [Int] = []
        var pending = 0
        for range in 0...thresholds.count {
            pending += counts[range] ?? 0
            guard pending > 0, range < thresholds.count else { continue }
            boundaries.append(thresholds[range])
            sizes.append(pending)
            pending = 0
        }
        if pending > 0 {
            sizes.append(pending)
        } else if !sizes.isEmpty {
            // The ranges after the last boundary were empty: the last batch reaches to the end of the id space.
            boundaries.removeLast()
        }
        return BatchPlan(boundaries: boundaries, sizes: sizes)
    }
}

extension UUID {
    /// The first 8 bytes, big-endian: where the id sits in channel-id order, to 64 bits.
    var high64: UInt64 {
        withUnsafeBytes(of: self.uuid) { bytes in bytes.prefix(8).reduce(0) { $0 << 8 | UInt64($1) } }
    }

    /// The id whose first 8 bytes are `high64` (big-endian) and whose other bytes are zero.
    init(high64: UInt64) {
        var bytes = [UInt8](repeating: 0, count: 16)
        for index in 0..<8 { bytes[index] = UInt8(truncatingIfNeeded: high64 >> (56 - 8 * UInt64(index))) }
        self = bytes.withUnsafeBytes { UUID(uuid: $0.load(as: uuid_t.self)) }
    }
}
