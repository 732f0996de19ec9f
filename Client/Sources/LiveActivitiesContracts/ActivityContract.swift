/// A contract: the JSON Schema of an attributes type's content state and attributes (see `docs/contracts.md`).
public struct ActivityContract: Sendable {}
