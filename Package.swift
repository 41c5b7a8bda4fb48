// swift-tools-version:6.1
import PackageDescription

// Traits keep what a user does not ask for out of their build and out of their dependency
// resolution: a package that depends on Doppel with its default traits (none) resolves no other
// package. The stub server and the doppel tool need SwiftNIO and ArgumentParser, so they are
// behind the `Server` trait: `.package(url: "…/Doppel.git", from: "0.2.0", traits: ["Server"])`.
// In this repository: `swift build --traits Server`, `swift test --traits Server`.
let server: TargetDependencyCondition? = .when(traits: ["Server"])
// The same for OpenAPI documents (DoppelOpenAPI): OpenAPIKit, Yams, swift-openapi-runtime and
// swift-http-types, only with the `OpenAPI` trait.
let openAPI: TargetDependencyCondition? = .when(traits: ["OpenAPI"])
// HTTPS for the stub server (`doppel serve --tls`): SwiftNIO SSL (BoringSSL), swift-certificates
// and swift-crypto, only with the `TLS` trait, so that nobody else builds BoringSSL.
let tls: TargetDependencyCondition? = .when(traits: ["TLS"])
// GraphQL schemas (DoppelGraphQL): GraphQLSwift's GraphQL (and its swift-collections), only with
// the `GraphQL` trait.
let graphQL: TargetDependencyCondition? = .when(traits: ["GraphQL"])

// `Doppel` re-exports its layers. A target that uses it names the layers too (`doppel` below), so
// that SwiftPM rebuilds it when a layer changes: through the re-export alone, an incremental build
// kept a dependent's stale object (a link error after DoppelError.Kind changed).
let layers: [Target.Dependency] = ["DoppelToolkit", "DoppelCore", "DoppelRecording", "DoppelManifest"]
let doppel: [Target.Dependency] = ["Doppel"] + layers

let package = Package(
  name: "Doppel",
  platforms: [.macOS(.v13), .iOS(.v16), .tvOS(.v16), .watchOS(.v9), .visionOS(.v1)],
  products: [
    .library(name: "Doppel", targets: ["Doppel"]),
    .library(name: "DoppelTesting", targets: ["DoppelTesting"]),
    .library(name: "DoppelServer", targets: ["DoppelServer"]),
    .executable(name: "doppel-cli", targets: ["DoppelCLI"]),
    .library(name: "DoppelOpenAPI", targets: ["DoppelOpenAPI"]),
    .library(name: "DoppelGraphQL", targets: ["DoppelGraphQL"]),
  ],
  traits: [
    .trait(
      name: "Server",
      description: "The loopback stub server (DoppelServer) and the doppel tool; adds SwiftNIO and ArgumentParser."
    ),
    .trait(
      name: "OpenAPI",
      description:
        "Stubs served from an OpenAPI document, validation against it and swift-openapi-generator transports (DoppelOpenAPI); adds OpenAPIKit, Yams, swift-openapi-runtime and swift-http-types."
    ),
    .trait(
      name: "TLS",
      description:
        "HTTPS for the stub server (doppel serve --tls, doppel trust) with a local certificate authority; turns on Server and adds SwiftNIO SSL, swift-certificates and swift-crypto.",
      enabledTraits: ["Server"]
    ),
    .trait(
      name: "GraphQL",
      description:
        "Stubs served from a GraphQL schema with mock data, validation of operations and answers against it (DoppelGraphQL); adds GraphQLSwift's GraphQL and swift-collections."
    ),
    .default(enabledTraits: []),
  ],
  dependencies: [
    // Resolved only when the Server trait is on.
    .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
    .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
    // Resolved only when the OpenAPI trait is on.
    .package(url: "https://github.com/mattpolzin/OpenAPIKit.git", from: "6.4.0"),
    .package(url: "https://github.com/jpsim/Yams.git", from: "6.2.2"),
    .package(url: "https://github.com/apple/swift-openapi-runtime.git", from: "1.13.4"),
    .package(url: "https://github.com/apple/swift-http-types.git", from: "1.8.0"),
    // Resolved only when the TLS trait is on.
    .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.37.6"),
    .package(url: "https://github.com/apple/swift-certificates.git", from: "1.21.1"),
    .package(url: "https://github.com/apple/swift-crypto.git", "3.12.3"..<"5.0.0"),
    // Resolved only when the GraphQL trait is on.
    .package(url: "https://github.com/GraphQLSwift/GraphQL.git", from: "4.3.0"),
  ],
  targets: [
    // The library a user imports: `Doppel` re-exports the layers below, each a module whose
    // imports the compiler checks. All of them depend on Foundation only.
    .target(name: "Doppel", dependencies: layers),
    // What every module shares: the positioned JSON parser, the file cache, SHA-256, locks,
    // suggestions, secret rules. Not a product; its `package` declarations are its interface.
    .target(name: "DoppelToolkit"),
    // The engine (backend, router, stubs, matching, responses, journal, clock), the URLSession and
    // in-memory doors, and the platform seam.
    .target(name: "DoppelCore", dependencies: ["DoppelToolkit"]),
    // HAR cassettes (replay, recording, redaction, lint) and Pact contracts.
    .target(name: "DoppelRecording", dependencies: ["DoppelToolkit", "DoppelCore"]),
    // Manifests, and the remote client that sends stubs to a running server as manifest JSON.
    .target(name: "DoppelManifest", dependencies: ["DoppelToolkit", "DoppelCore", "DoppelRecording"]),
    .testTarget(name: "DoppelTests", dependencies: doppel + ["TestHTTPServer", "TestSupport"]),

    // A tiny loopback HTTP/1.1 server for tests that need a real server (differential tests,
    // recording). Test-only; not a product.
    .target(name: "TestHTTPServer", path: "Tests/TestHTTPServer"),
    // What the test targets share: quietBackend(). Test-only; not a product.
    .target(name: "TestSupport", dependencies: doppel, path: "Tests/TestSupport"),

    // Swift Testing trait, XCTest helpers, verification and issue reporting.
    .target(name: "DoppelTesting", dependencies: doppel),
    .testTarget(name: "DoppelTestingTests", dependencies: doppel + ["DoppelTesting", "TestHTTPServer", "TestSupport"]),

    // The breeds app from the seed article, as a library plus a command-line tool.
    .target(
      name: "CatFancyKit",
      dependencies: doppel,
      path: "Examples/CatFancy/Sources/CatFancyKit",
      resources: [.copy("Fixtures")]
    ),
    .executableTarget(
      name: "catfancy",
      dependencies: ["CatFancyKit"],
      path: "Examples/CatFancy/Sources/catfancy"
    ),
    .testTarget(
      name: "CatFancyTests",
      dependencies: ["CatFancyKit"] + doppel,
      path: "Examples/CatFancy/Tests/CatFancyTests"
    ),

    // An app whose SDK makes its own session, driven from another process the way a UI test drives
    // an app: its in-process backend starts from the launch environment (DoppelServer's
    // InAppBackend). Does something only with the Server trait.
    .executableTarget(name: "sdkapp", dependencies: doppel + ["DoppelServer"], path: "Examples/SDKApp/Sources/sdkapp"),

    // The loopback HTTP front door (SwiftNIO). Without the Server trait it compiles to a module
    // that only says how to turn the trait on.
    .target(
      name: "DoppelServer",
      dependencies: doppel + [
        .product(name: "NIOCore", package: "swift-nio", condition: server),
        .product(name: "NIOPosix", package: "swift-nio", condition: server),
        .product(name: "NIOHTTP1", package: "swift-nio", condition: server),
        .product(name: "NIOWebSocket", package: "swift-nio", condition: server),
        .product(name: "NIOSSL", package: "swift-nio-ssl", condition: tls),
        .product(name: "X509", package: "swift-certificates", condition: tls),
        .product(name: "Crypto", package: "swift-crypto", condition: tls),
      ]
    ),
    .testTarget(
      name: "DoppelServerTests",
      dependencies: doppel + [
        "DoppelServer", "TestHTTPServer", "TestSupport",
        // Handlers tested on virtual time, as swift-nio tests its own.
        .product(name: "NIOEmbedded", package: "swift-nio", condition: server),
        // The certificates' fields, read back as a client would.
        .product(name: "X509", package: "swift-certificates", condition: tls),
        .product(name: "Crypto", package: "swift-crypto", condition: tls),
      ]
    ),

    // The doppel tool: serve, record, lint.
    .executableTarget(
      name: "DoppelCLI",
      dependencies: doppel + [
        "DoppelServer",
        "DoppelOpenAPI",
        "DoppelGraphQL",
        .product(name: "ArgumentParser", package: "swift-argument-parser", condition: server),
      ]
    ),
    .testTarget(name: "DoppelCLITests", dependencies: doppel + ["DoppelCLI", "DoppelServer"]),

    // Every Swift code block of README.md and the DocC articles, compiled: the sources in
    // Tests/DocumentationSnippets/Generated are written by Scripts/extract-doc-snippets. Blocks
    // about DoppelServer compile with the Server trait. A test target: the tests the snippets show
    // run, replaying the cassettes in Generated/__Cassettes__ (those marked compile-only declare no
    // test: the script lists them).
    .testTarget(
      name: "DocumentationSnippets",
      dependencies: doppel + ["CatFancyKit", "DoppelTesting", "DoppelServer", "DoppelOpenAPI", "DoppelGraphQL"],
      path: "Tests/DocumentationSnippets",
      exclude: ["Generated/__Cassettes__"],
      resources: [.copy("Fixtures")]
    ),
    // Checks that the generated snippets are up to date and that the reports the docs show are real.
    .testTarget(name: "DocumentationTests", dependencies: doppel + ["CatFancyKit", "DoppelTesting"]),

    // Stubs served from an OpenAPI document, and validation of requests and responses against it.
    // Without the OpenAPI trait it compiles to a module that only says how to turn the trait on.
    .target(
      name: "DoppelOpenAPI",
      dependencies: doppel + [
        .product(name: "OpenAPIKit", package: "OpenAPIKit", condition: openAPI),
        .product(name: "OpenAPIKit30", package: "OpenAPIKit", condition: openAPI),
        .product(name: "Yams", package: "Yams", condition: openAPI),
        .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime", condition: openAPI),
        .product(name: "HTTPTypes", package: "swift-http-types", condition: openAPI),
      ]
    ),
    // Generated/ holds swift-openapi-generator's output for Resources/cattery.yaml (see its README).
    .testTarget(
      name: "DoppelOpenAPITests",
      dependencies: doppel + [
        "DoppelOpenAPI", "DoppelTesting", "CatFancyKit", "DoppelServer", "TestSupport",
        .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime", condition: openAPI),
        .product(name: "HTTPTypes", package: "swift-http-types", condition: openAPI),
      ],
      exclude: ["Generated/README.md", "Generated/openapi.yaml", "Generated/openapi-generator-config.yaml"],
      resources: [.copy("Resources")]
    ),

    // Stubs served from a GraphQL schema, and validation of operations and answers against it.
    // Without the GraphQL trait it compiles to a module that only says how to turn the trait on.
    .target(
      name: "DoppelGraphQL",
      dependencies: doppel + [.product(name: "GraphQL", package: "GraphQL", condition: graphQL)]
    ),
    .testTarget(
      name: "DoppelGraphQLTests",
      dependencies: doppel + ["DoppelGraphQL", "DoppelTesting", "TestSupport"],
      resources: [.copy("Resources")]
    ),

    // Doppel's names beside NIOHTTP1's, swift-http-types' and an app's own `Request` and `Response`:
    // a test file that imports them all compiles (with the Server and OpenAPI traits).
    .target(name: "NameCollisionApp", path: "Tests/NameCollisionApp"),
    .testTarget(
      name: "NameCollisionTests",
      dependencies: doppel + [
        "DoppelTesting", "NameCollisionApp",
        .product(name: "NIOHTTP1", package: "swift-nio", condition: server),
        .product(name: "HTTPTypes", package: "swift-http-types", condition: openAPI),
      ]
    ),

    // Throughput against floors measured in the same run: `swift run -c release Benchmarks`.
    // Benchmarks/server holds the wrk/nginx script for the stub server, not Swift sources;
    // Benchmarks/TraitCost is a package of its own (what a test through the `.doppel` trait costs,
    // measured under Swift Testing's runner).
    // Benchmarks/baseline-quick.json is the baseline CI compares its smoke run with (--baseline).
    // With the OpenAPI trait it also measures validation against an OpenAPI document.
    .executableTarget(
      name: "Benchmarks",
      dependencies: doppel + [.target(name: "DoppelOpenAPI", condition: openAPI)],
      path: "Benchmarks", exclude: ["server", "TraitCost", "baseline-quick.json"]
    ),
  ],
  swiftLanguageModes: [.v6]
)
