#if OpenAPI
  import Doppel
  import Foundation

  extension OpenAPIDocument {
    /// Everything the document contradicts in what a stub declares, without sending a request:
    /// the static check of `doppel lint --openapi`.
    ///
    /// The stub's method and path (a literal path or a template such as `/breeds/{id}`) must be
    /// an operation of the document, and the values a literal path gives to path parameters must
    /// fit their schemas. Each response the stub gives without running code (a fixed response or
    /// each of a sequence) is checked as ``violations(in:response:)`` checks one: a documented
    /// status, required headers, content type and body schema. The messages are the same.
    ///
    /// What the matcher does not pin down is not checked: a stub matching paths by a regular
    /// expression, a glob or a closure has nothing to check; one without a method is checked for
    /// its path, and for its responses only when a single operation has that path; responses
    /// made by a closure are skipped.
    ///
    /// ```swift
    /// let stub = backend.stub(.get("https://api.cattery.test/v1/breeds/7"), .json(["name": 5]))
    /// for violation in document.violations(of: stub) { print(violation) }
    /// ```
    public func violations(of stub: StubHandle) -> [OpenAPIViolation] {
      let (method, path) = stub.declaredRequest
      guard let path else { return [] }
      let endpoint = method.map { "\($0.rawValue) \(path)" } ?? path
      let reached = basePaths.flatMap { base in
        segments(of: path, under: base).map { segments in
          routing.compactMap { operation in operation.match(template: segments).map { (operation, $0) } }
        } ?? []
      }
      guard let first = reached.first else { return [unknownPath(path, endpoint: endpoint)] }
      let chosen: (Operation, [String: String])
      if let method {
        let fitting = reached.filter { $0.0.method == method }
        // In routing order: the first that fits is the operation a request would reach.
        guard let best = fitting.first else {
          return [
            wrongMethod(
              method, template: first.0.template, methods: reached.map(\.0.method.rawValue),
              location: first.0.pathLocation, endpoint: endpoint)
          ]
        }
        chosen = best
      } else {
        // Any method: the responses belong to an operation only when the path has one.
        guard reached.count == 1 else { return [] }
        chosen = first
      }
      let (operation, captures) = chosen
      var found = checkParameters(operation, captures: captures, query: { [] }, headers: [:], pathOnly: true)
      for response in stub.declaredResponses where !response.isFailure {
        guard let body = try? response.bodyData() else { continue }
        let headers = Self.deliveredHeaders(response, body: body)
        for violation in check(status: response.status, headers: headers, body: body, operation)
        where !found.contains(violation) {
          found.append(violation)
        }
      }
      return found
    }
  }
#endif
