#if Server && GraphQL
  import Foundation

  /// A new folder holding the GraphQL tests' schema (`social.graphql`) and `files` (name and text).
  func socialSchemaFolder(_ files: [String: String]) throws -> URL {
    let directory = try temporaryDirectory()
    let schema = packageRoot.appendingPathComponent("Tests/DoppelGraphQLTests/Resources/social.graphql")
    try FileManager.default.copyItem(at: schema, to: directory.appendingPathComponent("social.graphql"))
    for (name, text) in files { try Data(text.utf8).write(to: directory.appendingPathComponent(name)) }
    return directory
  }
#endif
