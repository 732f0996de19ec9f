// swift-tools-version:6.0
// The Swift client that Apple's swift-openapi-generator makes from the gateway's served OpenAPI document, and a small
// program that sends one push through it. IntegrationTests copies this package, puts the document the gateway serves
// beside the sources as `openapi.json`, builds it and runs it (OpenAPI+GeneratedClient.swift).
import PackageDescription

let package = Package(
    name: "OpenAPIClientCheck",
    platforms: [.macOS(.v13)],
    dependencies: [
        .package(url: "https://github.com/apple/swift-openapi-generator", from: "1.14.0"),
        .package(url: "https://github.com/apple/swift-openapi-runtime", from: "1.13.0"),
        .package(url: "https://github.com/apple/swift-openapi-urlsession", from: "1.4.0"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.0.0"),
    ],
    targets: [
        .executableTarget(
            name: "OpenAPIClientCheck",
            dependencies: [
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
                .product(name: "OpenAPIURLSession", package: "swift-openapi-urlsession"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ],
            plugins: [.plugin(name: "OpenAPIGenerator", package: "swift-openapi-generator")]
        )
    ]
)
