/// A bench that cannot go on: what went wrong, said once.
struct BenchError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
