/// Rows read in full while their connection was leased: a statement run on the pool (`DatabaseClient.query`) or a
/// prepared statement's decoded rows. Iterated like the row sequence PostgresNIO returns (`decode` included, for rows).
public struct CollectedRows<Element: Sendable>: AsyncSequence, Sendable {
    public let elements: [Element]

    public init(_ elements: [Element]) {
        self.elements = elements
    }

    public struct AsyncIterator: AsyncIteratorProtocol {
        var base: IndexingIterator<[Element]>

        public mutating func next() async -> Element? { self.base.next() }
    }

    /// The rows, as PostgresNIO's row sequence gives them.
    public func collect() async throws -> [Element] { self.elements }

    public func makeAsyncIterator() -> AsyncIterator { AsyncIterator(base: self.elements.makeIterator()) }
}
