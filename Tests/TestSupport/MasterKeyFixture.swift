import Foundation

/// A valid `MASTER_KEY` (32 bytes, base64) for configurations that are parsed, not used.
public enum MasterKeyFixture {
    public static let base64 = Data(repeating: 7, count: 32).base64EncodedString()
}
