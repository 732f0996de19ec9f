/// A coding path component of the walk, for `Decoder.codingPath`.
struct SchemaCodingKey: CodingKey {
    var stringValue: String
    var intValue: Int?

    init(stringValue: String) { self.stringValue = stringValue }
    init(intValue: Int) {
        self.stringValue = "Index \(intValue)"
        self.intValue = intValue
    }

    static func path(_ path: [String]) -> [any CodingKey] { path.map { SchemaCodingKey(stringValue: $0) } }
}
