// swift-tools-version:6.1
import PackageDescription

// What a test through the `.doppel` trait costs, as Swift Testing runs it: a benchmark that needs
// Swift Testing's own runner (the trait's scope cannot run without it), so it is a test target in
// a package of its own, beside the Benchmarks executable, and never part of the main `swift test`.
// Run it in release mode, each case alone, and compare the durations Swift Testing prints (see
// BENCHMARKS.md):
//
//     swift test -c release --package-path Benchmarks/TraitCost --filter 'TestCostTests/throughTheTrait'
let package = Package(
  name: "DoppelTraitCost",
  platforms: [.macOS(.v13), .iOS(.v16), .tvOS(.v16), .watchOS(.v9), .visionOS(.v1)],
  dependencies: [.package(name: "Doppel", path: "../..")],
  targets: [
    .testTarget(name: "TraitCostTests", dependencies: [.product(name: "DoppelTesting", package: "Doppel")])
  ],
  swiftLanguageModes: [.v6]
)
