// swift-tools-version:6.1
import PackageDescription

// Tests with heavy test-only dependencies (AsyncHTTPClient brings NIOSSL and BoringSSL), kept out
// of the main package so that a first `swift test` there stays quick. `.ci/run` runs these with
// `swift test --package-path IntegrationTests`.
let package = Package(
  name: "DoppelIntegrationTests",
  platforms: [.macOS(.v13), .iOS(.v16), .tvOS(.v16), .watchOS(.v9), .visionOS(.v1)],
  dependencies: [
    .package(name: "Doppel", path: "..", traits: ["Server"]),
    .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
    .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
  ],
  targets: [
    .testTarget(
      name: "AsyncHTTPClientTests",
      dependencies: [
        .product(name: "Doppel", package: "Doppel"),
        .product(name: "DoppelServer", package: "Doppel"),
        .product(name: "NIOCore", package: "swift-nio"),
        .product(name: "AsyncHTTPClient", package: "async-http-client"),
      ],
      // Support.swift is a link to Tests/DoppelServerTests/Support.swift, whose code is compiled
      // only when the main package's Server trait is on; here it always is.
      swiftSettings: [.define("Server")]
    )
  ],
  swiftLanguageModes: [.v6]
)
