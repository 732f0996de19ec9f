/// One activity as the gateway tracks it.
struct ActivityInstance: Sendable, Equatable {
    var id: String
    var name: String
    var attributesType: String
}
