import Crypto
import Foundation
import LiveActivitiesCore
import Logging
import PostgresNIO

/// The schema version this build was written against. Gateway and worker refuse to serve any other.
/// A unit test checks it equals the highest numbered file in `sql/`.
public enum Schema {
    public static let version = 32
}
