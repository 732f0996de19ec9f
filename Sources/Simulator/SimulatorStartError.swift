/// The simulator could not start all of its servers.
public struct SimulatorStartError: Error, CustomStringConvertible {
    public var reason: String
    public var description: String { "simulator did not start: \(self.reason)" }
}
