/// An attributes type and a contract version that devices in a push's target run now (0: devices that reported
/// none, builds from before contracts).
public struct LiveContract: Sendable, Hashable {
    public var attributesType: String
    public var version: Int

    public init(attributesType: String, version: Int) {
        self.attributesType = attributesType
        self.version = version
    }
}
