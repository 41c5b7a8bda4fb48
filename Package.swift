// swift-tools-version:6.1
import PackageDescription

let package = Package(
  name: "Doppel",
  platforms: [.macOS(.v13), .iOS(.v16), .tvOS(.v16), .watchOS(.v9), .visionOS(.v1)],
  products: [
    .library(name: "Doppel", targets: ["Doppel"]),
    .library(name: "DoppelTesting", targets: ["DoppelTesting"]),
    .executable(name: "catfancy", targets: ["catfancy"]),
    .library(name: "DoppelServer", targets: ["DoppelServer"]),
    .executable(name: "doppel", targets: ["doppel"]),
  ],
  dependencies: [
    // Used only by DoppelServer, the doppel tool and their tests: a target that depends on
    // Doppel alone never builds them.
    .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
    .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
    // Test-only: a second, non-URLSession HTTP client for the server's interop tests.
    .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
  ],
  targets: [
    // The core: engine, URLSession front door. Depends on Foundation only.
    .target(name: "Doppel"),
    .testTarget(name: "DoppelTests", dependencies: ["Doppel", "TestHTTPServer"]),

    // A tiny loopback HTTP/1.1 server for tests that need a real server (differential tests,
    // recording). Test-only; not a product.
    .target(name: "TestHTTPServer", path: "Tests/TestHTTPServer"),

    // Swift Testing trait, XCTest helpers, verification and issue reporting.
    .target(name: "DoppelTesting", dependencies: ["Doppel"]),
    .testTarget(name: "DoppelTestingTests", dependencies: ["DoppelTesting", "TestHTTPServer"]),

    // The breeds app from the seed article, as a library plus a command-line tool.
    .target(
      name: "CatFancy",
      dependencies: ["Doppel"],
      path: "Examples/CatFancy/Sources/CatFancy",
      resources: [.copy("Fixtures")]
    ),
    .executableTarget(
      name: "catfancy",
      dependencies: ["CatFancy"],
      path: "Examples/CatFancy/Sources/catfancy"
    ),
    .testTarget(
      name: "CatFancyTests",
      dependencies: ["CatFancy", "Doppel"],
      path: "Examples/CatFancy/Tests/CatFancyTests"
    ),

    // The loopback HTTP front door (SwiftNIO), in its own product so Doppel alone never builds NIO.
    .target(
      name: "DoppelServer",
      dependencies: [
        "Doppel",
        .product(name: "NIOCore", package: "swift-nio"),
        .product(name: "NIOPosix", package: "swift-nio"),
        .product(name: "NIOHTTP1", package: "swift-nio"),
      ]
    ),
    .testTarget(
      name: "DoppelServerTests",
      dependencies: [
        "DoppelServer",
        .product(name: "AsyncHTTPClient", package: "async-http-client"),
      ]
    ),

    // The doppel tool: serve, record, lint.
    .executableTarget(
      name: "doppel",
      dependencies: [
        "DoppelServer",
        .product(name: "ArgumentParser", package: "swift-argument-parser"),
      ]
    ),
    .testTarget(name: "DoppelCLITests", dependencies: ["doppel", "DoppelServer"]),

    // Throughput against floors measured in the same run: `swift run -c release Benchmarks`.
    // Benchmarks/server holds the wrk/nginx script for the stub server, not Swift sources.
    .executableTarget(name: "Benchmarks", dependencies: ["Doppel"], path: "Benchmarks", exclude: ["server"]),
  ],
  swiftLanguageModes: [.v6]
)
