#if Server && !OpenAPI
  import Doppel
  import Foundation
  import Testing

  /// `doppel serve api.yaml` from a doppel built without the OpenAPI trait: a clear error that
  /// says how to build one with it.
  @Suite(.timeLimit(.minutes(1))) struct ServeWithoutOpenAPITraitTests {
    @Test func anOpenAPIDocumentNeedsTheTrait() async throws {
      let directory = try temporaryDirectory()
      try Data("openapi: 3.1.0\ninfo: {title: API, version: '1'}\npaths: {}\n".utf8)
        .write(to: directory.appendingPathComponent("api.yaml"))
      try Data(#"{"openapi": "3.0.3", "info": {"title": "API", "version": "1"}, "paths": {}}"#.utf8)
        .write(to: directory.appendingPathComponent("api.json"))
      for name in ["api.yaml", "api.json"] {
        let result = try await DoppelProcess.run(["serve", name, "--port", "0"], directory: directory)
        #expect(result.status != 0)
        #expect(
          result.error.contains(
            "\(name) is an OpenAPI document, and serving one needs the OpenAPI trait, which this doppel was built without. Build it with the trait on: swift build --traits Server,OpenAPI --product doppel-cli (or swift run --traits Server,OpenAPI doppel-cli serve \(name))."
          ))
      }
      let validate = try await DoppelProcess.run(
        ["serve", "api.yaml", "--validate", "report", "--port", "0"], directory: directory)
      #expect(validate.status != 0)
      #expect(
        validate.error.contains(
          "--validate checks against OpenAPI documents, and this doppel was built without the OpenAPI trait. Build it with the trait on: swift build --traits Server,OpenAPI --product doppel-cli."
        ))
    }
  }
#endif
