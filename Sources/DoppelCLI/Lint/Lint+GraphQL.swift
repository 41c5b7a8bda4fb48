#if Server && GraphQL
  import Doppel
  import DoppelGraphQL
  import Foundation

  // What `doppel lint --graphql` checks, with the GraphQL trait. Without it,
  // Lint+GraphQL+WithoutTrait.swift declares the same names and `--graphql` is refused.

  extension Lint {
    /// With the trait, `--graphql` needs nothing more.
    static let graphQLNeedsTrait: String? = nil

    /// The GraphQL schema `--graphql` names, read once; none when it is not given or cannot be
    /// used.
    struct GraphQLReference {
      let schema: GraphQLSchemaDocument?

      /// Reads the schema at `path`; one that cannot be used is reported (the files are still
      /// checked for everything else) and sets `unusable`.
      init(_ path: String?, unusable: inout Bool) {
        guard let path else {
          schema = nil
          return
        }
        do {
          schema = try GraphQLSchemaDocument(contentsOf: URL(fileURLWithPath: path))
        } catch {
          Console.out("\(path):\(error.line):\(error.column): \(error.message)")
          Console.error("doppel lint: the GraphQL schema \(path) cannot be used; the files are checked without it.")
          unusable = true
          schema = nil
        }
      }

      /// What the schema contradicts in the GraphQL exchanges of the input at `path`.
      func problems(in path: String) -> [String] {
        schema.map { Lint.check(path, against: $0) } ?? []
      }
    }

    /// `request` (which sends `sent`) with the query text `registered` holds for the persisted
    /// query it sends by its hash alone (in its JSON body, or as a `GET`'s `query` item);
    /// otherwise `request` itself.
    static func withRegisteredDocument(
      _ request: Request, sending sent: GraphQLRequest?, _ registered: [String: String]
    ) -> Request {
      guard let sent, sent.document == nil, let hash = sent.persistedQueryHash, let document = registered[hash]
      else { return request }
      if let body = request.body, !body.isEmpty, case .object(var fields)? = try? JSONValue(parsing: body) {
        fields["query"] = .string(document)
        return Request(
          method: request.method, url: request.url, headers: request.headers,
          body: Data("\(JSONValue.object(fields))".utf8))
      }
      guard var components = URLComponents(url: request.url, resolvingAgainstBaseURL: false) else { return request }
      components.queryItems = (components.queryItems ?? []) + [URLQueryItem(name: "query", value: document)]
      guard let url = components.url else { return request }
      return Request(method: request.method, url: url, headers: request.headers, body: request.body)
    }

    /// What `schema` contradicts in the GraphQL requests of a cassette and their answers, each
    /// line starting with the file (as typed) and the position of the entry. Other inputs, and a
    /// cassette that cannot be read (reported by ``check(_:redaction:)``), give none.
    static func check(_ path: String, against schema: GraphQLSchemaDocument) -> [String] {
      if let exchanges = cassetteExchanges(path) {
        // Apollo's automatic persisted queries send a query by its hash once the server knows
        // it: such an entry is checked with the text another entry of the cassette registered.
        let sent = exchanges.map { GraphQLRequest($0.request) }
        var registered: [String: String] = [:]
        for case let operation? in sent {
          if let hash = operation.persistedQueryHash, let document = operation.document {
            registered[hash] = document
          }
        }
        return zip(exchanges, sent).flatMap { exchange, sent -> [String] in
          guard !exchange.response.isFailure, let body = try? exchange.response.bodyData() else { return [] }
          let request = withRegisteredDocument(exchange.request, sending: sent, registered)
          return schema.violations(in: request, status: exchange.response.status, body: body).map {
            "\(exchange.place): GraphQL: \($0)"
          }
        }
      }
      // A manifest's stub names its operation, not the operation's text: its answers are
      // checked against the schema's types.
      guard URL(fileURLWithPath: path).pathExtension.lowercased() != "har",
        let manifest = try? Manifest.load(contentsOf: URL(fileURLWithPath: path))
      else { return [] }
      var problems: [String] = []
      for stub in stubs(of: manifest) {
        guard let operation = stub.declaredGraphQLOperation else { continue }
        let place = "\(shown(stub.location, in: manifest, typed: path)):\(stub.location.line):\(stub.location.column)"
        for response in stub.declaredResponses where (200..<300).contains(response.status) && !response.isFailure {
          guard let body = try? response.bodyData() else { continue }
          problems += schema.shapeViolations(ofAnswer: body, operation: operation).map { "\(place): GraphQL: \($0)" }
        }
      }
      return problems
    }
  }

  extension StubHandle {
    /// The GraphQL operation the stub's matcher names (`.graphQL(operation:)`, a manifest request's
    /// `graphql`), read from the matcher's spelling.
    fileprivate var declaredGraphQLOperation: String? {
      for part in matcher.flattened {
        if case .graphQL(let pattern)? = part.spelling, let operation = pattern.operation { return operation }
      }
      return nil
    }
  }
#endif
