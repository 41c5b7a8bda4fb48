// swift-tools-version:6.1
import PackageDescription

// Tests with heavy test-only dependencies (AsyncHTTPClient brings NIOSSL and BoringSSL, which the
// main package's TLS trait, on here, uses too: HTTPS tests against a real TLS client), kept out
// of the main package so that a first `swift test` there stays quick. `.ci/run` runs these with
// `swift test --package-path IntegrationTests`.
let package = Package(
  name: "DoppelIntegrationTests",
  platforms: [.macOS(.v13), .iOS(.v16), .tvOS(.v16), .watchOS(.v9), .visionOS(.v1)],
  dependencies: [
    .package(name: "Doppel", path: "..", traits: ["Server", "TLS"]),
    .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
    .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
    .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.37.6"),
  ],
  targets: [
    // QuietBackend.swift is a link to the main package's Tests/TestSupport.
    .target(
      name: "TestSupport", dependencies: [.product(name: "Doppel", package: "Doppel")], path: "Tests/TestSupport"),
    .testTarget(
      name: "AsyncHTTPClientTests",
      dependencies: [
        "TestSupport",
        .product(name: "Doppel", package: "Doppel"),
        .product(name: "DoppelServer", package: "Doppel"),
        .product(name: "NIOCore", package: "swift-nio"),
        .product(name: "AsyncHTTPClient", package: "async-http-client"),
        .product(name: "NIOSSL", package: "swift-nio-ssl"),
      ],
      // Support.swift is a link to Tests/DoppelServerTests/Support.swift, whose code is compiled
      // only when the main package's Server trait is on; here it always is.
      swiftSettings: [.define("Server")]
    ),
  ],
  swiftLanguageModes: [.v6]
)
