#if OpenAPI
  import Doppel
  import DoppelOpenAPI
  import Foundation

  #if canImport(FoundationNetworking)
    import FoundationNetworking
    @_spi(DoppelInternals) import DoppelToolkit
  #endif

  /// What checking one exchange against an OpenAPI document costs: a typical operation
  /// (`PUT /v1/breeds/{breedId}` with a path, a query and a header parameter, a request body and a
  /// response body of a dozen fields each, one `$ref` level), answered by `backend.respond(to:)`
  /// with and without ``Backend/validate(against:)``, interleaved; the difference is the cost of
  /// validating the request and its response. The checker alone is timed too, for profiling.
  enum Validation {
    /// The most one validation (request and response) may cost, in microseconds.
    static let goalMicroseconds = 20.0

    /// The document, written to a temporary file: one operation of the shape above, and a
    /// second path so that the lookup is not trivial.
    static let document = """
      openapi: 3.1.0
      info: {title: Benchmark, version: 1.0.0}
      servers:
        - url: https://api.example.com/v1
      paths:
        /breeds:
          get:
            operationId: listBreeds
            responses:
              '200':
                description: The breeds.
        /breeds/{breedId}:
          put:
            operationId: replaceBreed
            parameters:
              - name: breedId
                in: path
                required: true
                schema: {type: integer, format: int64, minimum: 1}
              - name: dryRun
                in: query
                schema: {type: boolean}
              - name: X-Request-ID
                in: header
                schema: {type: string, format: uuid}
            requestBody:
              required: true
              content:
                application/json:
                  schema: {$ref: '#/components/schemas/Breed'}
            responses:
              '200':
                description: Replaced.
                content:
                  application/json:
                    schema: {$ref: '#/components/schemas/Breed'}
              '404':
                description: Not found.
      components:
        schemas:
          Breed:
            type: object
            required: [id, name, origin, lifespan]
            additionalProperties: false
            properties:
              id: {type: integer, format: int64, minimum: 1}
              name: {type: string, minLength: 1, maxLength: 40}
              origin: {type: [string, 'null'], enum: [Ethiopia, Egypt, Thailand, United States, null]}
              temperament: {type: array, items: {type: string}, maxItems: 8}
              lifespan: {type: integer, minimum: 1, maximum: 30}
              weight: {type: number, minimum: 0}
              indoor: {type: boolean}
              registered: {type: string, format: date-time}
              website: {type: string, format: uri}
              contact: {type: string, format: email}
              code: {type: string, pattern: '^[A-Z]{3}$'}
              size: {type: string, enum: [small, medium, large]}
      """

    /// A breed with all twelve fields, valid against the schema.
    static let breedText =
      #"""
      {"id": 7, "name": "Abyssinian", "origin": "Ethiopia", "temperament": ["active", "curious"], "lifespan": 14, "weight": 4.5, "indoor": true, "registered": "2020-01-01T10:00:00Z", "website": "https://cats.example.com/abyssinian", "contact": "breeder@example.com", "code": "ABY", "size": "medium"}
      """#
    static let breed = Data(breedText.utf8)

    /// The request the client sends.
    static let request: URLRequest = {
      var request = URLRequest(url: URL(string: "https://api.example.com/v1/breeds/7?dryRun=false")!)
      request.httpMethod = "PUT"
      request.setValue("application/json", forHTTPHeaderField: "Content-Type")
      request.setValue("0b6c2a52-6d43-4b8e-9a53-2f7f0a6f5d10", forHTTPHeaderField: "X-Request-ID")
      request.httpBody = breed
      return request
    }()

    /// A backend answering the request with the breed; with `document`, validating against it.
    static func backend(validatingAgainst document: OpenAPIDocument?, violations: Guarded<Int>) -> Backend {
      let reporter = IssueReporter { _ in violations.withLock { $0 += 1 } }
      let backend = Backend(issueReporter: reporter)
      backend.stub(.put("https://api.example.com/v1/breeds/7"), .json(raw: breedText))
      if let document { backend.validate(against: document) }
      return backend
    }

    /// Measures, prints the figures, and returns the number of wrong answers (a violation counts
    /// as one: the exchange is valid, so any is a bug).
    static func run(options: Options) async -> Int {
      let folder = FileManager.default.temporaryDirectory.appendingPathComponent("doppel-validation-\(getpid())")
      defer { try? FileManager.default.removeItem(at: folder) }
      let parsed: OpenAPIDocument
      do {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let url = folder.appendingPathComponent("api.yaml")
        try Data(document.utf8).write(to: url)
        parsed = try OpenAPIDocument(contentsOf: url)
      } catch {
        print("Could not read the benchmark's OpenAPI document: \(error)")
        return 1
      }
      let violations = Guarded(0)
      let plain = backend(validatingAgainst: nil, violations: violations)
      let validated = backend(validatingAgainst: parsed, violations: violations)
      let requests = options.memoryRequests / 4
      func contender(_ name: String, _ backend: Backend) -> Contender {
        Contender(
          name: name,
          answer: { index in
            do {
              let (data, response) = try await backend.respond(to: request)
              if response.statusCode == 200 && data.count == breed.count { return true }
              recordFailure(name, "request \(index): wrong answer (status \(response.statusCode))")
            } catch {
              recordFailure(name, "request \(index): \(error)")
            }
            return false
          },
          reset: { backend.clearJournal() })
      }
      let comparison = Comparison(
        door: "respond(to:), OpenAPI", stubs: 1, mode: .sequential, requests: requests,
        warmUp: options.memoryWarmUp, goal: 0,
        floor: contender("without validation", plain), doppel: contender("validated", validated))

      // The checker alone, on the exchange the backend validates.
      let exchange = Request(request)
      let headers: HTTPHeaders = ["Content-Type": "application/json", "Content-Length": String(breed.count)]
      func checkerRun(_ count: Int) -> (seconds: Double, violations: Int) {
        let start = ContinuousClock.now
        var found = 0
        for _ in 0..<count {
          found += parsed.violations(in: exchange, status: 200, headers: headers, body: breed).count
        }
        return ((ContinuousClock.now - start) / .seconds(1), found)
      }

      if let side = options.profile {
        let count = requests
        if side == "checker" {
          let run = checkerRun(count)
          print("checker alone: \(twoDecimals(run.seconds / Double(count) * 1e6)) µs per validation")
          return run.violations
        }
        let contender = side == "floor" ? comparison.floor : comparison.doppel
        let run = await timedRun(contender, count: count, mode: .sequential)
        print("\(contender.name): \(twoDecimals(run.seconds / Double(count) * 1e6)) µs per request")
        return run.failures + violations.withLock { $0 }
      }

      let outcome = await measure(comparison, rounds: options.rounds)
      var checker: [Double] = []
      var checkerViolations = checkerRun(options.memoryWarmUp).violations
      for _ in 0..<options.rounds {
        let run = checkerRun(requests)
        checkerViolations += run.violations
        checker.append(run.seconds / Double(requests) * 1e6)
      }
      let floorMicros = 1e6 / outcome.floorRate
      let doppelMicros = 1e6 / outcome.doppelRate
      let cost = doppelMicros - floorMicros
      let perRound = zip(outcome.doppelRuns, outcome.floorRuns).map { 1e6 / $0.rate - 1e6 / $1.rate }
      recordFigure("OpenAPI validation, µs per exchange", cost, better: .lower, unit: "µs")
      recordFigure("OpenAPI checker alone, µs per exchange", median(checker), better: .lower, unit: "µs")
      progress(
        "OpenAPI validation: \(twoDecimals(cost)) µs per exchange (respond(to:) \(twoDecimals(floorMicros)) µs, "
          + "validated \(twoDecimals(doppelMicros)) µs; checker alone \(twoDecimals(median(checker))) µs)")
      print("")
      print(
        "OpenAPI validation of one request and its response (PUT with 3 parameters, 12-field bodies, one $ref level; "
          + "\(grouped(Double(requests))) exchanges per run, \(options.rounds) interleaved rounds, medians):")
      print("")
      print("| measure | µs per exchange |")
      print("|---|---|")
      print("| respond(to:) without validation | \(twoDecimals(floorMicros)) |")
      print("| respond(to:) with validate(against:) | \(twoDecimals(doppelMicros)) |")
      print(
        "| cost of validation (difference; rounds \(twoDecimals(perRound.min() ?? .nan))–\(twoDecimals(perRound.max() ?? .nan))) | \(twoDecimals(cost)) |"
      )
      print("| the checker alone (violations(in:status:headers:body:)) | \(twoDecimals(median(checker))) |")
      print("")
      print(
        "Goal: validation at most \(Int(goalMicroseconds)) µs: "
          + (cost <= goalMicroseconds ? "met" : "**not met**"))
      return outcome.failures + violations.withLock { $0 } + checkerViolations
    }
  }
#endif
