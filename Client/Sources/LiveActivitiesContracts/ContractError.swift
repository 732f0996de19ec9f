/// A type the contract language cannot describe, or an upload's document that is not one: where, why and what to do.
public struct ContractError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The coding path, from the document's root (`content_state.score.phase`, `content_state.history[]`,
    /// `attributes.extra.*` for a dictionary's values).
    public var path: String
    public var reason: String

    public init(path: String, reason: String) {
        self.path = path
        self.reason = reason
    }

    init(root: String, path: [String], reason: String) {
        self.init(path: Self.display(root: root, path), reason: reason)
    }

    static func display(root: String, _ path: [String]) -> String {
        var text = root
        for component in path {
            if component == "[]" || text.isEmpty {
                text += component
            } else {
                text += "." + component
            }
        }
        return text.isEmpty ? "(root)" : text
    }

    public var description: String { "\(self.path): \(self.reason)" }
}
