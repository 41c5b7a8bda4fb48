#if GraphQL
  import Doppel
  import DoppelGraphQL
  import Foundation
  import TestSupport

  /// The test schemas, from the test target's resources.
  enum Schemas {
    static func url(_ name: String) -> URL {
      Bundle.module.bundleURL.appendingPathComponent("Resources").appendingPathComponent(name)
    }

    static var social: URL { url("social.graphql") }
    static var endpoint: URL { URL(string: "https://api.social.test/graphql")! }

    /// A file with `text` in a new temporary folder, for schemas that are wrong on purpose.
    static func temporary(_ name: String, _ text: String) throws -> URL {
      try temporaryFile(name, text, prefix: "doppel-graphql")
    }

    /// A backend that serves the social schema at ``endpoint`` and collects its issues.
    static func served(_ mocks: GraphQLMocks = GraphQLMocks()) throws -> Collected {
      let collected = Collected()
      try collected.backend.addStub(fromGraphQLSchema: social, at: .url(endpoint.absoluteString), mocks: mocks)
      return collected
    }
  }

  extension Backend {
    /// Sends an operation as Apollo iOS does: a `POST` of `{"operationName", "query", "variables"}`.
    func send(
      _ query: String?, operationName: String?, variables: JSONValue? = nil, extensions: JSONValue? = nil,
      accept: String = "application/json"
    ) async throws -> (body: String, status: Int) {
      var fields: [String: JSONValue] = [:]
      if let query { fields["query"] = .string(query) }
      if let operationName { fields["operationName"] = .string(operationName) }
      if let variables { fields["variables"] = variables }
      if let extensions { fields["extensions"] = extensions }
      var request = URLRequest(url: Schemas.endpoint)
      request.httpMethod = "POST"
      request.setValue("application/json", forHTTPHeaderField: "Content-Type")
      request.setValue(accept, forHTTPHeaderField: "Accept")
      request.httpBody = Data(JSONValue.object(fields).description.utf8)
      let (data, response) = try await respond(to: request)
      return (String(decoding: data, as: UTF8.self), response.statusCode)
    }
  }
#endif
