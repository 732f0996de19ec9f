import Foundation
import PostgresStore
import Testing

/// `UUID.precedes` is PostgreSQL's order of `uuid`: bytes compared one by one, unsigned.
@Suite struct UUIDOrderTests {
    @Test func bytesCompareUnsignedFromTheFirst() throws {
        let ordered = [
            "00000000-0000-0000-0000-000000000000", "00000000-0000-0000-0000-000000000001",
            "0000000f-ffff-ffff-ffff-ffffffffffff", "7fffffff-ffff-ffff-ffff-ffffffffffff",
            "80000000-0000-0000-0000-000000000000", "ffffffff-ffff-ffff-ffff-fffffffffffe",
            "ffffffff-ffff-ffff-ffff-ffffffffffff",
        ].map { UUID(uuidString: $0)! }
        for (i, a) in ordered.enumerated() {
            for (j, b) in ordered.enumerated() {
                #expect(a.precedes(b) == (i < j), "\(a) before \(b)")
            }
        }
    }
}
