/// A body that is one object or a non-empty list of them (Airship accepts both for pushes and schedules).
public struct OneOrMany<Element: Decodable & Sendable>: Decodable, Sendable {
    public var elements: [Element]

    /// The longest list accepted.
    public static var limit: Int { 100 }

    public init(from decoder: any Decoder) throws {
        guard var list = try? decoder.unkeyedContainer() else {
            self.elements = [try Element(from: decoder)]
            return
        }
        var elements: [Element] = []
        while !list.isAtEnd {
            guard elements.count < Self.limit else {
                throw ValidationError(path: "", rule: "a list may hold at most \(Self.limit) items")
            }
            elements.append(try list.decode(Element.self))
        }
        guard !elements.isEmpty else { throw ValidationError(path: "", rule: "the list is empty") }
        self.elements = elements
    }
}
