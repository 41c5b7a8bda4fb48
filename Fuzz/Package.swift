// swift-tools-version:6.1
import PackageDescription

// libFuzzer targets for Doppel: run them with `.ci/fuzz` (which builds them with the toolchain's
// `-sanitize=fuzzer` and address sanitizer, and runs each for a bounded time from its seed corpus
// in Corpus/). Each target is an executable whose entry point is `LLVMFuzzerTestOneInput`;
// libFuzzer supplies `main`.
let package = Package(
  name: "DoppelFuzz",
  platforms: [.macOS(.v13)],
  dependencies: [
    .package(name: "Doppel", path: "..", traits: ["Server", "OpenAPI"]),
    .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
  ],
  targets: [
    // Manifest(data:url:) and adding its stubs (base and every scenario) to a backend.
    .executableTarget(name: "FuzzManifest", dependencies: [.product(name: "Doppel", package: "Doppel")]),
    // Cassette(data:file:), replaying it into a backend, and CassetteLint.scan.
    .executableTarget(name: "FuzzHAR", dependencies: [.product(name: "Doppel", package: "Doppel")]),
    // OpenAPIDocument(contentsOf:), stubs served from it, and requests and responses checked against it.
    .executableTarget(
      name: "FuzzOpenAPI",
      dependencies: [
        .product(name: "Doppel", package: "Doppel"),
        .product(name: "DoppelOpenAPI", package: "Doppel"),
      ]
    ),
    // Bytes on the wire through a stub server connection's pipeline, on an EmbeddedChannel.
    .executableTarget(
      name: "FuzzServer",
      dependencies: [
        .product(name: "Doppel", package: "Doppel"),
        .product(name: "DoppelServer", package: "Doppel"),
        .product(name: "NIOCore", package: "swift-nio"),
        .product(name: "NIOEmbedded", package: "swift-nio"),
      ]
    ),
  ],
  swiftLanguageModes: [.v6]
)
