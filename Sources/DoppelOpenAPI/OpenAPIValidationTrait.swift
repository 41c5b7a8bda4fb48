#if OpenAPI && canImport(Testing)
  import Doppel
  import Foundation
  import Testing
  @_spi(DoppelInternals) import DoppelToolkit

  /// A test or suite trait that checks every request and response of the test's backend against an
  /// OpenAPI document; each violation fails the test. Create it with
  /// ``Testing/Trait/doppel(openAPI:filePath:)``.
  ///
  /// It needs DoppelTesting's `.doppel` trait on the same test or an enclosing suite, in either
  /// order: that trait makes the backend, this one checks it.
  public struct OpenAPIValidationTrait: TestTrait, SuiteTrait, TestScoping {
    let url: URL

    /// `true`: on a suite, every test in it is checked.
    public var isRecursive: Bool { true }

    /// Checks the backend the `.doppel` trait makes for each test case.
    public func provideScope(
      for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
      guard testCase != nil else { return try await function() }
      let document: OpenAPIDocument
      do {
        document = try OpenAPIDocument.shared(url)
      } catch {
        Issue.record(Comment(rawValue: "\(error)"), sourceLocation: test.sourceLocation)
        return
      }
      if let backend = Backend.scoped {
        backend.validate(against: document)
        return try await function()
      }
      let applied = Locked(false)
      let setUp: @Sendable (Backend) -> Void = { backend in
        applied.withLock { $0 = true }
        backend.validate(against: document)
      }
      try await Backend.$pendingSetUp.withValue(Backend.pendingSetUp + [setUp]) { try await function() }
      if !applied.withLock({ $0 }) {
        Issue.record(
          Comment(
            rawValue:
              ".doppel(openAPI:) found no backend to check. Add the .doppel trait to the test or its suite, as in @Test(.doppel { … }, .doppel(openAPI: \"\(url.lastPathComponent)\"))."
          ), sourceLocation: test.sourceLocation)
      }
    }
  }

  extension Trait where Self == OpenAPIValidationTrait {
    /// Checks every request the code under test sends and every response the test's stubs give
    /// against the OpenAPI document at `path`; each violation fails the test with the operation,
    /// the JSON path, the rule and where the document states it.
    ///
    /// ```swift
    /// @Suite(.doppel(openAPI: "api.yaml"))
    /// struct BreedTests {
    ///   @Test(.doppel { $0.stub(.get("https://api.example.com/v1/breeds"), .json(breeds)) })
    ///   func loads() async throws { … }
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - path: the document; a relative path is taken from the test file's folder.
    ///   - filePath: the test file; leave the default.
    public static func doppel(openAPI path: String, filePath: String = #filePath) -> Self {
      let base = URL(fileURLWithPath: filePath).deletingLastPathComponent()
      let url = path.hasPrefix("/") ? URL(fileURLWithPath: path) : base.appendingPathComponent(path)
      return OpenAPIValidationTrait(url: url)
    }

    /// ``doppel(openAPI:filePath:)`` for a document given by URL (a bundle resource, for example).
    public static func doppel(openAPI url: URL) -> Self { OpenAPIValidationTrait(url: url) }
  }
#endif
