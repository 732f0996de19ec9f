import Testing

@Suite struct ContractPlaceholderTests {
    @Test func placeholder() {}
}
