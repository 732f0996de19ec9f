import Foundation

/// What APNs answered to a broadcast or channel-management request.
public struct APNsBroadcastAnswer: Sendable, Equatable {
    public var status: Int
    /// The `reason` of an error's JSON body (Apple's name, e.g. `ChannelNotRegistered`).
    public var reason: String?
    /// `apns-channel-id`: the id of a channel just created (base64; its length is not fixed).
    public var channelID: String?
    /// `apns-unique-id`: a broadcast's id at Apple.
    public var uniqueID: String?
    /// `apns-request-id`: the request's id, sent or assigned.
    public var requestID: String?
    /// The body of a successful read (`GET .../all-channels`, a channel's configuration).
    public var body: Data

    public init(
        status: Int, reason: String? = nil, channelID: String? = nil, uniqueID: String? = nil,
        requestID: String? = nil, body: Data = Data()
    ) {
        self.status = status
        self.reason = reason
        self.channelID = channelID
        self.uniqueID = uniqueID
        self.requestID = requestID
        self.body = body
    }

    public var isSuccess: Bool { (200..<300).contains(self.status) }

    /// `{"channels":[...]}` of `GET /1/apps/<bundle id>/all-channels`.
    public var channelIDs: [String] {
        struct Listing: Decodable { var channels: [String] }
        return (try? JSONDecoder().decode(Listing.self, from: self.body))?.channels ?? []
    }

    /// A refused or expired provider token: mint a new one and try once more.
    var refusedProviderToken: Bool {
        self.status == 403
            && ["ExpiredProviderToken", "InvalidProviderToken", "MissingProviderToken"].contains(self.reason ?? "")
    }
}
