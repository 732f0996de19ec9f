/// `Dictionary` seen through a metatype: its `init(from:)` iterates the payload's keys, which a walk without a payload
/// does not have.
protocol DictionaryMarker {
    static var keyType: Any.Type { get }
    static var valueType: any Decodable.Type { get }
    static var empty: Self { get }
}

extension Dictionary: DictionaryMarker where Key: Decodable, Value: Decodable {
    static var keyType: Any.Type { Key.self }
    static var valueType: any Decodable.Type { Value.self }
    static var empty: Self { [:] }
}
