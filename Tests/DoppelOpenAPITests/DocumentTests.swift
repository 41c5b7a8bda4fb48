#if OpenAPI
  import Doppel
  import DoppelOpenAPI
  import Foundation
  import Testing

  @Suite struct DocumentTests {
    @Test(arguments: ["cattery.yaml", "cattery-3.0.json"])
    func readsBothVersions(_ name: String) throws {
      let document = try OpenAPIDocument(contentsOf: Documents.url(name))
      #expect(
        document.operationIDs == [
          "listBreeds", "createBreed", "getBreed", "replaceBreed", "deleteBreed", "listPhotos", "listPets", "createPet",
          "getPet", "getOwner", "updateOwner", "health",
        ])
      #expect(document.exampleNames == ["standard", "empty", "missing"])
      #expect(document.version.hasPrefix(name.hasSuffix("json") ? "3.0" : "3.1"))
    }

    @Test func probe() throws {
      let document = try OpenAPIDocument(contentsOf: Documents.cattery)
      let request = Request.make(.post, "/breeds", json: #"{"id": 3, "name": "", "lifespan": 0, "origin": "Mars"}"#)
      for v in document.violations(in: request, status: 201, headers: ["Content-Type": "application/json"], body: Data(#"{"name": 5}"#.utf8)) {
        print("V:", v)
      }
    }
  }
#endif
