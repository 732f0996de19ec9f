// swift-tools-version:6.1
import PackageDescription

let swiftSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny")
]

// The device half of the Live Activities gateway, for apps: a package of its own, with no dependencies, so that an
// app that adds it resolves and builds nothing of the server (`../Package.swift`, which tests it end to end).
let package = Package(
    name: "LiveActivitiesClient",
    platforms: [.iOS("16.1"), .macOS(.v15)],
    products: [
        // The device API client: Foundation only.
        .library(name: "LiveActivitiesClient", targets: ["LiveActivitiesClient"]),
        // The ActivityKit glue over it: `watch(...)`, `start(...)`.
        .library(name: "LiveActivitiesKit", targets: ["LiveActivitiesKit"]),
        // C-callable exports over the client, for Unity's C# binding (`Unity/`) and any C caller.
        .library(name: "LiveActivitiesUnity", type: .dynamic, targets: ["LiveActivitiesUnity"]),
        // Contracts (the shapes the app decodes) made from the app's own `Codable` types, and their upload: for the app's
        // tests and CI, never shipped in the app (uploading takes the master secret).
        .library(name: "LiveActivitiesContracts", targets: ["LiveActivitiesContracts"]),
        // `live-activities-contract upload`: the CI step that uploads a contract the app's tests made.
        .executable(name: "live-activities-contract", targets: ["LiveActivitiesContractTool"]),
        // ActivityKit's stand-in, for tests where ActivityKit cannot be imported (Linux, macOS).
        .library(name: "ActivityKitStandIn", targets: ["ActivityKitStandIn"]),
    ],
    targets: [
        .target(name: "LiveActivitiesClient", swiftSettings: swiftSettings),
        // Where ActivityKit cannot be imported, the glue is compiled against the stand-in, which declares the part of
        // ActivityKit it uses with Apple's signatures; on iOS the stand-in is not built and ActivityKit is imported.
        .target(name: "ActivityKitStandIn", swiftSettings: swiftSettings),
        .target(
            name: "LiveActivitiesKit",
            dependencies: [
                "LiveActivitiesClient",
                .target(name: "ActivityKitStandIn", condition: .when(platforms: [.linux, .macOS])),
            ],
            swiftSettings: swiftSettings
        ),
        .target(name: "LiveActivitiesContracts", dependencies: ["LiveActivitiesClient"], swiftSettings: swiftSettings),
        .executableTarget(
            name: "LiveActivitiesContractTool", dependencies: ["LiveActivitiesContracts"], swiftSettings: swiftSettings),
        .target(name: "LiveActivitiesUnity", dependencies: ["LiveActivitiesClient"], swiftSettings: swiftSettings),
    ]
)
