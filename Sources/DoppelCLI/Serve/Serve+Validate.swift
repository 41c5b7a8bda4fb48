#if Server && OpenAPI
  import Doppel
  import DoppelOpenAPI
  import Foundation
  @_spi(DoppelInternals) import DoppelToolkit

  extension Serve {
    /// The OpenAPI documents among the inputs as last loaded: what `--validate` checks against.
    static let validatedDocuments = Locked([OpenAPIDocument]())

    /// From now on, prints a line for everything the inputs' OpenAPI documents (as last loaded)
    /// contradict in a request `backend` answers or in its answer:
    ///
    /// ```text
    /// OpenAPI: getBook (GET /books/{bookId}): request path parameter bookId: expected an integer, found the string "abc" (library.yaml:31 paths./books/{bookId}.parameters.0.schema.type)
    /// ```
    ///
    /// The lines are printed only: the answers stay what the stubs say.
    static func printViolations(of backend: Backend) {
      backend.addExchangeObserver { exchange in
        let documents = validatedDocuments.withLock { $0 }
        for violation in violations(in: exchange, against: documents) {
          Console.out(Redaction.default.redact(line: "OpenAPI: \(violation)"))
        }
      }
    }

    /// What the first document that documents the request's path and method contradicts in the
    /// exchange; when none does, what the first document says of it.
    private static func violations(in exchange: Backend.Exchange, against documents: [OpenAPIDocument])
      -> [OpenAPIViolation]
    {
      var first: [OpenAPIViolation]?
      for document in documents {
        let found = document.violations(
          in: exchange.request, status: exchange.status, headers: exchange.headers, body: exchange.body)
        // Only a request no operation fits has violations without an operation.
        if !found.contains(where: { $0.operation == nil }) { return found }
        if first == nil { first = found }
      }
      return first ?? []
    }
  }
#endif
