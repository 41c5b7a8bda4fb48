// swift-tools-version:6.1
import PackageDescription

let package = Package(
  name: "Doppel",
  platforms: [.macOS(.v13), .iOS(.v16), .tvOS(.v16), .watchOS(.v9), .visionOS(.v1)],
  products: [
    .library(name: "Doppel", targets: ["Doppel"]),
    .library(name: "DoppelTesting", targets: ["DoppelTesting"]),
    .executable(name: "catfancy", targets: ["catfancy"]),
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

    // Throughput against floors measured in the same run: `swift run -c release Benchmarks`.
    .executableTarget(name: "Benchmarks", dependencies: ["Doppel"], path: "Benchmarks"),
  ],
  swiftLanguageModes: [.v6]
)
