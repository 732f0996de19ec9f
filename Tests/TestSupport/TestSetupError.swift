/// A test's own setup or wait went wrong (not the code under test's answer).
public struct TestSetupError: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}
