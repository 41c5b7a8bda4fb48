import DoppelCore
import DoppelRecording
@_spi(DoppelInternals) import DoppelToolkit
import Foundation

/// A stub written as a manifest's stub object, read from somewhere other than a manifest file
/// (the body of a request to a stub server's admin API), with the manifest's rules and messages.
package struct StubDefinition: Sendable {
  var stub: ManifestStub
  /// The stub object as received, compact.
  package let json: String

  /// Reads one stub object (`{"request": …, "response": …}`).
  ///
  /// - Parameters:
  ///   - data: the JSON text.
  ///   - source: what errors name instead of a file, such as `request body`.
  ///   - directory: the folder the stub's files (`"file"`, a template, a proxy's `"record"`) are
  ///     found in and must stay inside; `nil`: the stub may name no file.
  ///   - proxyHosts: the hosts a `"proxy"` may send to; `nil` (the default): any host.
  /// - Throws: ``DoppelError`` as for a manifest: `source:line:column: key.path: the problem and the fix`.
  package init(parsing data: Data, source: String, directory: URL?, proxyHosts: [String]? = nil) throws(DoppelError) {
    let root = try Self.parse(data, source: source)
    var reader = ManifestReader(
      url: (directory ?? URL(fileURLWithPath: "/")).appendingPathComponent(Self.fileName), bytes: [UInt8](data))
    reader.reach = StubReach(directory: directory, proxyHosts: proxyHosts)
    let read = reader.stub(root, .root)
    let problems = reader.log.sorted
    guard problems.isEmpty, let read else {
      let message =
        problems.isEmpty ? "\(source): the stub could not be read." : problems.map(\.message).joined(separator: "\n")
      var error = Self.renamed(DoppelError.invalidStub(message), reader: reader, source: source)
      // One kind for the whole: a malformed part makes the request malformed.
      let kinds = Set(problems.map(\.fault))
      error.fault = kinds.count == 1 ? kinds.first! : .malformed
      throw error
    }
    stub = read
    json = root.serialized
  }

  /// Where the stub counts as declared (in near-miss reports and the journal): by default
  /// `source` at the stub's line; a client may name its own call site (`LoginUITests.swift:42`).
  package var location: CodeLocation {
    get { stub.location }
    set {
      stub = ManifestStub(
        matcher: stub.matcher, responder: stub.responder, times: stub.times, name: stub.name, location: newValue,
        requiresState: stub.requiresState, setsState: stub.setsState, stateMachine: stub.stateMachine,
        template: stub.template)
    }
  }

  /// The manifest stub object's keys.
  package static var keys: [String] { ManifestKeys.stub }

  /// A placeholder file name for the reader, replaced by `source` in messages.
  private static let fileName = "admin"

  static func parse(_ data: Data, source: String) throws(DoppelError) -> PositionedJSON {
    guard String(data: data, encoding: .utf8) != nil else {
      throw DoppelError.invalidStub("\(source): the JSON is not UTF-8 text. Send UTF-8.")
    }
    let bytes = [UInt8](data)
    do {
      return try PositionedJSONParser.parse(bytes, whenEmpty: "the body is empty")
    } catch {
      let message = error.message
      throw DoppelError.invalidStub(
        "\(source):\(TextPosition(offset: error.offset, in: bytes)): malformed JSON: \(message).")
    }
  }

  /// `error` with the reader's placeholder path replaced by `source`.
  static func renamed(_ error: DoppelError, reader: ManifestReader, source: String) -> DoppelError {
    // Every line of a message that lists several problems starts with the path.
    let lines = error.message.split(separator: "\n", omittingEmptySubsequences: false).map { line in
      line.hasPrefix(reader.displayPath) ? source + line.dropFirst(reader.displayPath.count) : String(line)
    }
    return DoppelError.invalidStub(lines.joined(separator: "\n"))
  }

  /// The largest `count`, `atLeast` or `atMost` a verification takes: 2^53 - 1, the largest whole
  /// number every JSON reader keeps exact (the admin API's document says so too).
  package static let largestCount = 9_007_199_254_740_991

  /// Reads a verification: `{"request": <a manifest stub's request>, "count": 1}`, with
  /// `count`, or `atLeast` and/or `atMost`, or none (just count).
  ///
  /// - Returns: the request pattern, and the counts that pass (`nil` when none was asked for), or
  ///   in `impossible` why no count can pass (`atMost` below `atLeast`): a verification that fails
  ///   whatever was sent, with the fix, rather than a malformed request.
  /// - Throws: ``DoppelError`` as for a manifest: `source:line:column: key.path: the problem and the fix`.
  package static func verification(
    _ data: Data, source: String
  ) throws(DoppelError) -> (matcher: Matcher, expected: ClosedRange<Int>?, impossible: String?) {
    let root = try parse(data, source: source)
    let reader = ManifestReader(url: URL(fileURLWithPath: "/").appendingPathComponent(fileName), bytes: [UInt8](data))
    do throws(ManifestProblem) {
      let fields = try reader.object(
        root, .root, known: ["request", "count", "atLeast", "atMost"], what: "a verification")
      guard let pattern = fields["request"] else {
        throw reader.error(
          root, .root,
          "\"request\" is missing: the requests to count, written as a manifest stub's request, such as \"GET /me\" or {\"method\": \"POST\", \"url\": \"/orders\"}."
        )
      }
      let matcher = try reader.matcher(pattern, fields.path("request"))
      try reader.requireAtMostOne(
        ["count", "atLeast"], in: fields, "count is exact; use atLeast and atMost for a range.")
      try reader.requireAtMostOne(
        ["count", "atMost"], in: fields, "count is exact; use atLeast and atMost for a range.")
      func number(_ key: String) throws(ManifestProblem) -> Int? {
        guard let node = fields[key] else { return nil }
        return try reader.integer(
          node, fields.path(key), in: 0...largestCount, what: "a number of requests (0 to \(largestCount))")
      }
      if let count = try number("count") { return (matcher, count...count, nil) }
      let low = try number("atLeast")
      let high = try number("atMost")
      if low == nil && high == nil { return (matcher, nil, nil) }
      guard (low ?? 0) <= (high ?? Int.max) else {
        return (
          matcher, nil, "atMost (\(high ?? 0)) is below atLeast (\(low ?? 0)): no count passes. Swap them."
        )
      }
      return (matcher, (low ?? 0)...(high ?? Int.max), nil)
    } catch {
      var renamed = renamed(DoppelError.invalidStub(error.message), reader: reader, source: source)
      renamed.fault = error.fault
      throw renamed
    }
  }
}

extension Backend {
  /// Registers a stub read with ``StubDefinition``, as a manifest's stubs are registered.
  @discardableResult
  package func register(_ definition: StubDefinition) -> StubHandle {
    register(definition.stub)
  }

  /// Replaces every stub with copies of `other`'s (same matchers, responders, limits, names,
  /// locations, states and expectations; call counts start again), and takes its unmatched policy,
  /// its seed and what shapes its unmatched answers.
  /// The journal and the state are kept: a stub server reloads its files this way.
  ///
  /// - Returns: the new handles, oldest first.
  @discardableResult
  package func replaceStubs(with other: Backend) -> [StubHandle] {
    unmatchedPolicy = other.unmatchedPolicy
    seed = other.seed
    let shapers = other.locked.withLock { $0.unmatchedShapers }
    locked.withLock { $0.unmatchedShapers = shapers }
    let stubs = other.stubs
    // In one step, so a request during a reload never meets a missing or half-set-up stub.
    return router.replaceAll(
      with: stubs.map { stub in
        Router.Addition(
          matcher: stub.matcher, responder: stub.responder, limit: stub.limit, name: stub.name,
          location: stub.location, fallback: stub.order < 0)
      },
      configure: { index, handle in
        let stub = stubs[index]
        if let state = stub.requiredState { handle.requiresState(state) }
        if let state = stub.nextState { handle.setsState(state) }
        if let name = stub.stateMachine { handle.stateMachine(name) }
        if let expected = stub.expectedCalls {
          _ =
            expected.upperBound == Int.max
            ? handle.expect(atLeast: expected.lowerBound) : handle.expect(times: expected.lowerBound)
        }
      })
  }

  /// The near-miss report for `request` against this backend's stubs, as an unmatched request
  /// would get it.
  package func nearMissReport(for request: Request) -> String {
    NearMissReport.make(for: request, stubs: stubs, state: machine.withLock { $0 })
  }
}

extension Matcher {
  /// The report for a verification that failed: how many requests matched against how many were
  /// expected, then the requests closest to the pattern, field by field (as a near-miss report
  /// shows stubs).
  ///
  /// - Parameters:
  ///   - requests: the requests the journal keeps.
  ///   - count: how many of them match.
  ///   - expected: the counts that pass.
  ///   - dropped: how many older requests the journal's limit dropped.
  package func verificationReport(
    requests: [Request], count: Int, expected: ClosedRange<Int>, dropped: Int
  ) -> String {
    let kept = requests.count == 1 ? "the 1 request" : "the \(requests.count) requests"
    var redactor = ReportRedactor()
    var lines = [
      "Expected \(Self.describe(expected)) matching \(redactor.description(self)); found \(count) among \(kept) in the journal."
    ]
    if dropped > 0 {
      lines.append("(\(dropped) older requests were dropped by the journal's limit and not counted.)")
    }
    let misses = requests.filter { !matches($0) }
    if count < expected.lowerBound, !misses.isEmpty {
      // The closest requests first: fewest failed conditions, then the most recent.
      let ranked = misses.enumerated().map { item -> (Int, Int, Request, [CheckLine]) in
        let lines = check(item.element)
        return (lines.filter { !$0.passed }.count, -item.offset, item.element, lines)
      }.sorted { ($0.0, $0.1) < ($1.0, $1.1) }
      lines.append("Closest requests:")
      for (number, candidate) in ranked.prefix(NearMissReport.shown).enumerated() {
        lines.append("  \(number + 1). \(candidate.2.method) \(redactor.text(candidate.2.url.absoluteString))")
        let width = candidate.3.map(\.field.count).max() ?? 0
        for line in candidate.3.map({ redactor.line($0, in: candidate.2) }) {
          let field = line.field.padding(toLength: width)
          lines.append(
            line.passed
              ? "       ✓ \(field) \(line.expected)" : "       ✗ \(field) expected \(line.expected), got \(line.actual)"
          )
        }
      }
      let hidden = ranked.count - NearMissReport.shown
      if hidden > 0 { lines.append("  (\(hidden) more \(hidden == 1 ? "request" : "requests") not shown)") }
    } else if count < expected.lowerBound {
      lines.append("The journal has no other requests: make the app send the request, or check the server it talks to.")
    }
    return lines.joined(separator: "\n")
  }

  /// `exactly 1 request`, `at least 2 requests`, `1 to 3 requests`, `at most 0 requests`.
  package static func describe(_ expected: ClosedRange<Int>) -> String {
    let noun = expected.upperBound == 1 && expected.lowerBound == 1 ? "request" : "requests"
    if expected.lowerBound == expected.upperBound { return "exactly \(expected.lowerBound) \(noun)" }
    if expected.upperBound == Int.max {
      return "at least \(expected.lowerBound) \(expected.lowerBound == 1 ? "request" : "requests")"
    }
    if expected.lowerBound == 0 {
      return "at most \(expected.upperBound) \(expected.upperBound == 1 ? "request" : "requests")"
    }
    return "\(expected.lowerBound) to \(expected.upperBound) requests"
  }
}

extension StubHandle {
  /// The stub's registration number in its backend, counting fallback stubs (those made from a
  /// document) and ordinary ones alike from 0: what a stub server's admin API names it by.
  package var registrationNumber: Int { serial }
}

extension StubDefinition {
  /// The candidate closest to `name` when it is likely a typo of it (see the manifest's
  /// "Did you mean" suggestions).
  package static func closest(to name: String, in candidates: [String]) -> String? {
    Suggestion.closest(to: name, in: candidates)
  }
}
