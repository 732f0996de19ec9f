import Foundation

/// PostgreSQL's order of `uuid`: the 16 bytes compared one by one, as unsigned (`uuid_cmp` is a `memcmp`).
extension UUID {
    /// 00000000-0000-0000-0000-000000000000, first in that order.
    static let lowest = UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0))
    /// ffffffff-ffff-ffff-ffff-ffffffffffff, last in that order.
    static let highest = UUID(
        uuid: (255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255))

    /// Whether `self` comes before `other` in PostgreSQL's order.
    public func precedes(_ other: UUID) -> Bool {
        withUnsafeBytes(of: self.uuid) { a in
            withUnsafeBytes(of: other.uuid) { b in
                for index in 0..<16 where a[index] != b[index] { return a[index] < b[index] }
                return false
            }
        }
    }
}
