#if OpenAPI
  import Doppel
  import DoppelOpenAPI
  import Foundation
  import TestSupport

  /// The test documents, from the test target's resources.
  enum Documents {
    static func url(_ name: String) -> URL {
      Bundle.module.bundleURL.appendingPathComponent("Resources").appendingPathComponent(name)
    }

    static var cattery: URL { url("cattery.yaml") }
    static var cattery30: URL { url("cattery-3.0.json") }
    static var catFancy: URL { url("catfancy.yaml") }

    /// A document with one operation, `GET /a`, whose `200` JSON response has `schema` as its
    /// schema: YAML lines, indented under `schema:` (line 11), so the schema starts on line 12.
    /// `rest` (top-level YAML, such as `components:`) follows.
    static func answering(_ schema: String, rest: String = "") -> String {
      let indented = schema.split(separator: "\n", omittingEmptySubsequences: false).map { "                " + $0 }
      let head = """
        openapi: 3.1.0
        info: {title: x, version: '1'}
        paths:
          /a:
            get:
              responses:
                '200':
                  description: ok
                  content:
                    application/json:
                      schema:

        """
      return head + indented.joined(separator: "\n") + "\n" + rest
    }

    /// A file with `text` in a new temporary folder, for documents that are wrong on purpose.
    static func temporary(_ name: String, _ text: String) throws -> URL {
      try temporaryFile(name, text, prefix: "doppel-openapi")
    }
  }

  extension URL {
    static func cattery(_ path: String) -> URL { URL(string: "https://api.cattery.test/v1\(path)")! }
  }

  extension Request {
    static func make(
      _ method: HTTPMethod, _ path: String, headers: HTTPHeaders = [:], json: String? = nil
    ) -> Request {
      var headers = headers
      if json != nil, !headers.contains("Content-Type") { headers.add("Content-Type", "application/json") }
      return Request(method: method, url: .cattery(path), headers: headers, body: json.map { Data($0.utf8) })
    }
  }
#endif
