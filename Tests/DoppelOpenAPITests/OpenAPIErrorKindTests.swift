#if OpenAPI
  import Doppel
  import DoppelOpenAPI
  import Foundation
  import Testing

  /// A program handles DoppelOpenAPI's errors as Doppel's: of kind `openAPI`, with the document's
  /// file and line.
  @Suite struct OpenAPIErrorKindTests {
    @Test func aDocumentThatCannotBeUsedUnwrapsAsKindOpenAPIWithItsLine() throws {
      let future = try Documents.temporary("future-kind.yaml", "info: {title: x, version: '1'}\nopenapi: 4.0.0\n")
      do {
        _ = try OpenAPIDocument(contentsOf: future)
        Issue.record("an OpenAPI 4 document was read")
      } catch {
        let failure = try #require(DoppelError(unwrapping: error))
        #expect(failure.kind == .openAPI)
        #expect(
          failure.message
            == "future-kind.yaml:2: OpenAPI 4.0.0 is not supported; Doppel reads 3.0.x and 3.1.x. Declare `openapi: 3.1.0` or `3.0.3` (in quotes in YAML)."
        )
        #expect("\(failure)" == "\(error)")
        #expect(error.localizedDescription == failure.message)
        #expect(failure.localizedDescription == failure.message)
        #expect(failure.location?.fileName == "future-kind.yaml")
        #expect(failure.location?.line == 2)
        // The document's error has the same location shape.
        #expect(error.location == failure.location)
      }
    }

    @Test func aScenarioNoExampleHasIsOfKindOpenAPI() throws {
      do {
        try Backend().addStubs(fromOpenAPI: Documents.cattery, scenario: "emtpy")
        Issue.record("a scenario no example has was chosen")
      } catch let failure as DoppelError {
        #expect(failure.kind == .openAPI)
        #expect(failure.message.hasPrefix("The scenario \"emtpy\" (chosen in code) is not the name of any example"))
      }
    }
  }
#endif
