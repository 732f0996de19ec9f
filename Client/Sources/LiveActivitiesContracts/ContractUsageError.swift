/// A `live-activities-contract` command line or document that cannot be run: nothing was sent.
public struct ContractUsageError: Error, Sendable, Equatable, CustomStringConvertible {
    public var message: String

    public init(_ message: String) { self.message = message }

    public var description: String { self.message }
}
