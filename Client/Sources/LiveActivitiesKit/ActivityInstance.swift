/// One activity as the gateway tracks it.
struct ActivityInstance: Sendable, Equatable {
    var id: String
    var name: String
    var attributesType: String
    /// The contract version this build decodes for the type, if it has contracts.
    var contractVersion: Int? = nil
}
