/// `Optional` seen through a metatype: the maker describes `X?` by `X`, without running `Optional.init(from:)`, which
/// would branch on null.
protocol OptionalMarker {
    static var wrappedType: any Decodable.Type { get }
    static var absent: Self { get }
}

extension Optional: OptionalMarker where Wrapped: Decodable {
    static var wrappedType: any Decodable.Type { Wrapped.self }
    static var absent: Self { nil }
}
