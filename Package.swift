// swift-tools-version:6.1
import PackageDescription

let swiftSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny")
]

let package = Package(
    name: "live-activities-gateway",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "gateway", targets: ["Gateway"]),
        .executable(name: "worker", targets: ["Worker"]),
        .executable(name: "apns-sim", targets: ["APNsSimulator"]),
        .executable(name: "bench", targets: ["Bench"]),
        .library(name: "APNsTransport", targets: ["APNsTransport", "APNsCommon"]),
        .library(name: "LiveActivitiesCore", targets: ["LiveActivitiesCore"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-asn1.git", from: "1.0.0"),
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.20.0"),
        .package(url: "https://github.com/apple/swift-certificates.git", from: "1.6.0"),
        .package(url: "https://github.com/apple/swift-collections.git", from: "1.1.0"),
        .package(url: "https://github.com/apple/swift-crypto.git", "3.9.0"..<"5.0.0"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.6.0"),
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.5.0"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.81.0"),
        .package(url: "https://github.com/apple/swift-nio-extras.git", from: "1.20.0"),
        .package(url: "https://github.com/apple/swift-nio-http2.git", from: "1.36.0"),
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.29.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.5.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus.git", from: "2.1.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.6.0"),
        .package(url: "https://github.com/vapor/postgres-nio.git", from: "1.25.0"),
        // The device half, a package of its own (apps add `Client/` alone); tested here against the real gateway.
        .package(path: "Client"),
    ],
    // The layout is the design card's: `Sources/Gateway` and `Sources/Worker` (the two processes), `Sources/Shared`
    // (the libraries the processes link), the simulator and the bench beside them.
    // The arrows tell the architecture: a pure domain core; APNs' provider tokens and endpoints (`APNsCommon`) under
    // an HTTP/2 transport and a broadcast client that know nothing of the core; the PostgreSQL store over the core;
    // broadcast channel management over the store and the broadcast client; delivery (the worker's job handlers)
    // over all of them. The gateway links neither the transport nor delivery: it reaches Apple only through
    // `BroadcastManagement` (channel management, on request); every notification is sent by a worker.
    targets: [
        .target(name: "LiveActivitiesCore", path: "Sources/Shared/LiveActivitiesCore", swiftSettings: swiftSettings),
        .target(
            name: "APNsCommon",
            dependencies: [.product(name: "Crypto", package: "swift-crypto")],
            path: "Sources/Shared/APNsCommon",
            swiftSettings: swiftSettings
        ),
        .target(
            name: "APNsTransport",
            dependencies: [
                "APNsCommon",
                .product(name: "DequeModule", package: "swift-collections"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHPACK", package: "swift-nio-http2"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ],
            path: "Sources/Shared/APNsTransport",
            swiftSettings: swiftSettings
        ),
        .target(
            name: "APNsBroadcast",
            dependencies: [
                "APNsCommon",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ],
            path: "Sources/Shared/APNsBroadcast",
            swiftSettings: swiftSettings
        ),
        // The PostgreSQL layer: the pool, statements under `LostStatementGuard`, named statements, migrations.
        .target(
            name: "PostgresDatabase",
            dependencies: [
                "LiveActivitiesCore",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            path: "Sources/Shared/PostgresDatabase",
            swiftSettings: swiftSettings
        ),
        // The job queue and its runner (claims, leases, wake-ups, the express lane, recurring jobs).
        .target(
            name: "JobQueue",
            dependencies: [
                "LiveActivitiesCore", "PostgresDatabase",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            path: "Sources/Shared/JobQueue",
            swiftSettings: swiftSettings
        ),
        .target(
            name: "PostgresStore",
            dependencies: [
                "LiveActivitiesCore", "PostgresDatabase", "JobQueue",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            path: "Sources/Shared/PostgresStore",
            swiftSettings: swiftSettings
        ),
        .target(
            name: "BroadcastManagement",
            dependencies: [
                "APNsBroadcast", "APNsCommon", "LiveActivitiesCore", "PostgresStore",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            path: "Sources/Shared/BroadcastManagement",
            swiftSettings: swiftSettings
        ),
        .target(
            name: "Delivery",
            dependencies: [
                "APNsBroadcast", "APNsCommon", "APNsTransport", "BroadcastManagement", "LiveActivitiesCore",
                "PostgresStore",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            path: "Sources/Shared/Delivery",
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "Gateway",
            dependencies: [
                "APNsBroadcast", "BroadcastManagement", "LiveActivitiesCore", "PostgresStore",
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "Prometheus", package: "swift-prometheus"),
            ],
            resources: [.copy("Resources/openapi.json")],
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "Worker",
            dependencies: [
                "APNsBroadcast", "APNsCommon", "APNsTransport", "BroadcastManagement", "Delivery", "LiveActivitiesCore",
                "PostgresStore",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Prometheus", package: "swift-prometheus"),
            ],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "Simulator",
            dependencies: [
                "APNsCommon", "APNsTransport", "LiveActivitiesCore",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdHTTP2", package: "hummingbird"),
                .product(name: "NIOHPACK", package: "swift-nio-http2"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
            ],
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "APNsSimulator",
            dependencies: [
                "Simulator",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "Bench",
            dependencies: [
                "APNsCommon", "APNsTransport", "LiveActivitiesCore", "PostgresStore", "Simulator",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
            ],
            swiftSettings: swiftSettings
        ),
        // What both test tiers share: the simulator harness, the waits with deadlines, the repository's paths, a
        // migrated database of its own per test.
        .target(
            name: "TestSupport",
            dependencies: [
                "APNsCommon", "APNsTransport", "PostgresDatabase", "Simulator",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
            ],
            path: "Tests/TestSupport",
            swiftSettings: swiftSettings
        ),
        // The unit tier: no PostgreSQL, seconds to run.
        .testTarget(
            name: "LiveActivitiesCoreTests", dependencies: ["LiveActivitiesCore"], swiftSettings: swiftSettings),
        .testTarget(
            name: "APNsTransportTests",
            dependencies: [
                "APNsCommon", "APNsTransport", "TestSupport", .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "GatewayTests",
            dependencies: [
                "Gateway", "PostgresStore", "TestSupport",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "DeploymentTests", dependencies: ["Gateway", "Worker", "PostgresStore", "TestSupport"],
            swiftSettings: swiftSettings),
        .testTarget(
            name: "PostgresStoreTests",
            dependencies: [
                "PostgresStore", "LiveActivitiesCore", .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(name: "DeliveryTests", dependencies: ["Delivery", "APNsTransport"], swiftSettings: swiftSettings),
        .testTarget(
            name: "SimulatorTests",
            dependencies: [
                "Simulator", "APNsCommon", "APNsTransport", .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "LiveActivitiesClientTests",
            dependencies: [
                "TestSupport",
                .product(name: "LiveActivitiesClient", package: "Client"),
                .product(name: "LiveActivitiesKit", package: "Client"),
                .product(name: "ActivityKitStandIn", package: "Client"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
            ],
            swiftSettings: swiftSettings
        ),
        // Contracts: the client's maker against Foundation's `JSONDecoder`, and the core's check against both.
        .testTarget(
            name: "ContractTests",
            dependencies: [
                "LiveActivitiesCore",
                .product(name: "LiveActivitiesContracts", package: "Client"),
                .product(name: "LiveActivitiesKit", package: "Client"),
                .product(name: "ActivityKitStandIn", package: "Client"),
            ],
            swiftSettings: swiftSettings
        ),
        // The integration tier: PostgreSQL (make test starts one), the simulator, worker processes.
        .testTarget(
            name: "JobQueueTests",
            dependencies: [
                "JobQueue", "PostgresDatabase", "LiveActivitiesCore", "TestSupport",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "IntegrationTests",
            dependencies: [
                "APNsBroadcast", "APNsCommon", "APNsTransport", "BroadcastManagement", "Delivery", "LiveActivitiesCore",
                "PostgresStore", "Gateway", "Worker", "Simulator", "TestSupport",
                .product(name: "LiveActivitiesClient", package: "Client"),
                .product(name: "LiveActivitiesContracts", package: "Client"),
                .product(name: "LiveActivitiesKit", package: "Client"),
                .product(name: "ActivityKitStandIn", package: "Client"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "Prometheus", package: "swift-prometheus"),
            ],
            resources: [.copy("Fixtures")],
            swiftSettings: swiftSettings
        ),
    ]
)
