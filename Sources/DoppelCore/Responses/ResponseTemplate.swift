@_spi(DoppelInternals) import DoppelToolkit
import Foundation

/// A response whose body and header values hold `{{variables}}` filled in from each request: a
/// manifest response with `"template": true` (see the "Fixtures and scenarios" article). The body's
/// template is written in the manifest or in code (``body``), or is a fixture file's text
/// (``bodyFile``).
///
/// Variables: `method`, `url`, `path`, `body`; `path.NAME` (a capture of the request's path
/// template), `query.NAME`, `header.NAME`, `json./POINTER` (a field of the request's JSON body, by
/// JSON Pointer); `now` (ISO 8601) or `now.FORMAT` (a date format such as `yyyy-MM-dd`) on the
/// backend's clock; `uuid`, `random` and `random.MIN-MAX`, from a generator seeded per stub (the
/// template's `seed`, 0 by default), so a run can be repeated exactly.
package struct ResponseTemplate: Sendable {
  /// A piece of template text: literal text or a variable.
  package enum Piece: Sendable, Equatable {
    case text(String)
    case variable(Variable)
  }

  package enum Variable: Sendable, Equatable {
    case method, url, path, body
    case capture(String)
    case query(String)
    case header(String)
    case json(String)
    case now(format: String?)
    case uuid
    case random(ClosedRange<Int64>)
  }

  /// The response with its body and header values still as written.
  let base: Response
  /// The body's pieces, and whether values are escaped as JSON string content (a `json` body).
  let body: [Piece]?
  package let escapesJSON: Bool
  /// Each header's pieces, in order.
  let headers: [(name: String, pieces: [Piece])]
  package let seed: UInt64
  /// The file whose text is the body's template, read for each request (instead of ``body``).
  var bodyFile: FileTemplate? = nil

  package init(
    base: Response, body: [Piece]?, escapesJSON: Bool, headers: [(name: String, pieces: [Piece])], seed: UInt64,
    bodyFile: FileTemplate? = nil
  ) {
    self.base = base
    self.body = body
    self.escapesJSON = escapesJSON
    self.headers = headers
    self.seed = seed
    self.bodyFile = bodyFile
  }

  /// The names a template may use, for messages.
  static let variableNames = [
    "method", "url", "path", "body", "path.NAME", "query.NAME", "header.NAME", "json./POINTER", "now",
    "now.FORMAT", "uuid", "random", "random.MIN-MAX",
  ]

  /// Splits `text` into pieces.
  ///
  /// - Parameter captures: the path template's parameter names, when known, to check `path.NAME`.
  /// - Returns: the pieces, or the problem and the UTF-8 offset in `text` where it is.
  static package func parse(_ text: String, captures: [String]?) -> Result<[Piece], TemplateProblem> {
    var pieces: [Piece] = []
    var rest = Substring(text)
    while let open = rest.range(of: "{{") {
      if open.lowerBound > rest.startIndex { pieces.append(.text(String(rest[..<open.lowerBound]))) }
      let offset = text.utf8.distance(from: text.startIndex, to: open.lowerBound)
      guard let close = rest[open.upperBound...].range(of: "}}") else {
        return .failure(
          TemplateProblem(
            offset: offset, message: "a template variable starts with {{ but has no }}. Close it, as in {{path.id}}."))
      }
      let name = rest[open.upperBound..<close.lowerBound].trimmingCharacters(in: .whitespaces)
      switch variable(name, captures: captures) {
      case .success(let variable): pieces.append(.variable(variable))
      case .failure(let problem): return .failure(TemplateProblem(offset: offset, message: problem.message))
      }
      rest = rest[close.upperBound...]
    }
    if !rest.isEmpty { pieces.append(.text(String(rest))) }
    return .success(pieces)
  }

  private static func variable(_ name: String, captures: [String]?) -> Result<Variable, VariableProblem> {
    let (kind, argument): (String, String?) = {
      guard let dot = name.firstIndex(of: ".") else { return (name, nil) }
      return (String(name[..<dot]), String(name[name.index(after: dot)...]))
    }()
    switch (kind, argument) {
    case ("method", nil): return .success(.method)
    case ("url", nil): return .success(.url)
    case ("path", nil): return .success(.path)
    case ("body", nil): return .success(.body)
    case ("uuid", nil): return .success(.uuid)
    case ("now", let format): return .success(.now(format: format))
    case ("random", nil): return .success(.random(0...999_999))
    case ("random", let range?):
      let bounds = range.split(separator: "-", maxSplits: 1).map { Int64($0.trimmingCharacters(in: .whitespaces)) }
      guard bounds.count == 2, let low = bounds[0], let high = bounds[1], low <= high else {
        return .failure(
          VariableProblem(
            message:
              "\"{{\(name)}}\" is not a random range; write {{random.MIN-MAX}} with whole numbers from 0 to \(Int64.max), MIN not above MAX, as in {{random.1-100}}."
          ))
      }
      return .success(.random(low...high))
    case ("path", let capture?) where !capture.isEmpty:
      if let captures, !captures.contains(capture) {
        let known =
          captures.isEmpty
          ? "The request's path has no {parameters}; write one in \"request\", as in \"GET /users/{id}\"."
          : "The request's path parameters are: \(captures.joined(separator: ", "))."
        let guess = Suggestion.closest(to: capture, in: captures).map { " Did you mean \"{{path.\($0)}}\"?" } ?? ""
        return .failure(VariableProblem(message: "unknown template variable \"{{\(name)}}\".\(guess) \(known)"))
      }
      return .success(.capture(capture))
    case ("query", let item?) where !item.isEmpty: return .success(.query(item))
    case ("header", let field?) where !field.isEmpty: return .success(.header(field))
    case ("json", let pointer?) where pointer.isEmpty || pointer.hasPrefix("/"): return .success(.json(pointer))
    case ("json", _):
      return .failure(
        VariableProblem(
          message:
            "\"{{\(name)}}\" needs a JSON Pointer into the request's body after \"json.\", starting with /, as in {{json./user/name}}."
        ))
    default:
      let kinds = ["method", "url", "path", "body", "query", "header", "json", "now", "uuid", "random"]
      return .failure(
        VariableProblem(
          message:
            "unknown template variable \"{{\(name)}}\".\(Suggestion.closest(to: kind, in: kinds).map { " Did you mean \"\($0)\"?" } ?? "") The variables are: \(variableNames.joined(separator: ", "))."
        ))
    }
  }

  /// A responder rendering this template for each request, on `clock`, with its own generator.
  func responder(clock: ClockBox) -> Responder {
    let generator = Locked(SplitMix64(seed: seed))
    let elapsed = ElapsedTime(clock.clock)
    let started = Date()
    return .handler { [self] request in
      let now = started.addingTimeInterval(elapsed.seconds())
      return render(request, now: now, generator: generator)
    }
  }

  /// The most bytes a templated answer's body and header values may fill in together: 16 MiB.
  ///
  /// A template that repeats a large value (`{{body}}` a thousand times over a request's 8 MiB
  /// body) would otherwise build gigabytes for one request. Rendering stops as soon as the next
  /// piece would pass the cap, so at most the cap and one value are held, and the request is
  /// answered with ``tooLarge`` (the stub server's 500 for a stub problem).
  static let answerSizeLimit = 16 * 1024 * 1024

  /// The problem of a rendering that stopped at ``answerSizeLimit``, before the stub is known
  /// (see ``tooLarge(stub:)``).
  static let tooLarge = tooLarge(stub: nil)

  /// The problem of a rendering that stopped at ``answerSizeLimit``, naming `stub` (`declared at
  /// doppel.json:3 (GET /echo)`) when known.
  static func tooLarge(stub: String?) -> DoppelError {
    DoppelError.invalidStub(
      "\(stub.map { "The stub \($0) has a templated answer that" } ?? "A templated answer") would be larger than 16 MiB, the cap on a generated answer; rendering stopped there. Repeat large values ({{body}}, {{json./…}}) fewer times in the template, or answer with a fixed body or a file."
    )
  }

  /// The response for `request`: `onto` (by default the template's base) with the body and
  /// header values filled in, or with the body ``tooLarge`` when they would pass
  /// ``answerSizeLimit``.
  func render(_ request: Request, now: Date, generator: Locked<SplitMix64>, onto: Response? = nil) -> Response {
    var response = onto ?? base
    var room = Self.answerSizeLimit
    if let bodyFile {
      switch bodyFile.pieces() {
      case .success(let pieces):
        guard let text = fill(pieces, request, now, generator, json: escapesJSON, room: &room) else {
          return Self.failing(response)
        }
        response.body.source = .data(Data(text.utf8))
      case .failure(let problem):
        response.body.source = .problem(problem)
      }
    } else if let body {
      guard let text = fill(body, request, now, generator, json: escapesJSON, room: &room) else {
        return Self.failing(response)
      }
      response.body.source = .data(Data(text.utf8))
    }
    if !headers.isEmpty {
      var filled = HTTPHeaders()
      for field in response.headers where !headers.contains(where: { $0.name == field.name }) {
        filled.add(field.name, field.value)
      }
      for (name, pieces) in headers {
        guard let value = fill(pieces, request, now, generator, json: false, room: &room) else {
          return Self.failing(response)
        }
        filled.add(name, value)
      }
      response.headers = filled
    }
    return response
  }

  /// `response` answering with ``tooLarge``.
  private static func failing(_ response: Response) -> Response {
    var failed = response
    failed.body.source = .problem(tooLarge)
    return failed
  }

  /// The pieces filled in, or `nil` as soon as the text would take more than `room` UTF-8 bytes;
  /// `room` is reduced by the text's size.
  private func fill(
    _ pieces: [Piece], _ request: Request, _ now: Date, _ generator: Locked<SplitMix64>, json: Bool,
    room: inout Int
  ) -> String? {
    var output = ""
    for piece in pieces {
      let next: String
      switch piece {
      case .text(let text): next = text
      case .variable(let variable):
        let value = Self.value(variable, request, now, generator)
        next = json ? Self.escapedForJSONString(value) : value
      }
      let size = next.utf8.count
      guard size <= room else { return nil }
      room -= size
      output += next
    }
    return output
  }

  private static func value(
    _ variable: Variable, _ request: Request, _ now: Date, _ generator: Locked<SplitMix64>
  ) -> String {
    switch variable {
    case .method: return request.method.rawValue
    case .url: return request.url.absoluteString
    case .path: return request.path
    case .body: return request.bodyText ?? ""
    case .capture(let name): return request.pathParameters[name] ?? ""
    case .query(let name): return request.queryItems.first { $0.name == name }?.value ?? ""
    case .header(let name): return request.headers[name] ?? ""
    case .json(let pointer):
      guard let body = request.body, let json = try? JSONValue(parsing: body) else { return "" }
      return JSONPointer.resolve(pointer, in: json).map(JSONPointer.text) ?? ""
    case .now(let format):
      let formatter = DateFormatter()
      formatter.locale = Locale(identifier: "en_US_POSIX")
      formatter.timeZone = TimeZone(identifier: "UTC")
      formatter.dateFormat = format ?? "yyyy-MM-dd'T'HH:mm:ss'Z'"
      return formatter.string(from: now)
    case .uuid:
      let (high, low) = generator.withLock { ($0.next(), $0.next()) }
      return Self.uuid(high: high, low: low)
    case .random(let range):
      let span = UInt64(bitPattern: range.upperBound &- range.lowerBound)
      let draw = generator.withLock { $0.next() }
      let offset = span == UInt64.max ? draw : draw % (span + 1)
      return String(range.lowerBound &+ Int64(bitPattern: offset))
    }
  }

  /// A version 4 UUID's text from 128 random bits.
  private static func uuid(high: UInt64, low: UInt64) -> String {
    let high = (high & 0xFFFF_FFFF_FFFF_0FFF) | 0x0000_0000_0000_4000
    let low = (low & 0x3FFF_FFFF_FFFF_FFFF) | 0x8000_0000_0000_0000
    func hex(_ value: UInt64, _ digits: Int) -> String {
      let text = String(value, radix: 16, uppercase: true)
      return String(repeating: "0", count: max(0, digits - text.count)) + text
    }
    return
      "\(hex(high >> 32, 8))-\(hex((high >> 16) & 0xFFFF, 4))-\(hex(high & 0xFFFF, 4))-\(hex(low >> 48, 4))-\(hex(low & 0xFFFF_FFFF_FFFF, 12))"
  }

  /// `value` escaped to stand inside a JSON string.
  static func escapedForJSONString(_ value: String) -> String {
    var output = ""
    appendJSONEscaped(value, to: &output)
    return output
  }
}

/// The templates of a manifest stub: its one response's, or those of responses of its sequence.
package enum StubTemplate: Sendable {
  case single(ResponseTemplate)
  /// The sequence's responses, the template of each that has one, and what happens after the last.
  case sequence([Response], [ResponseTemplate?], SequenceEnd)

  /// A responder rendering the templates for each request, on `clock`; each template has its own
  /// generator.
  package func responder(clock: ClockBox) -> Responder {
    switch self {
    case .single(let template):
      return template.responder(clock: clock)
    case .sequence(let responses, let templates, let end):
      let renderers = templates.map { $0?.responder(clock: clock) }
      let calls = Locked(0)
      return .handler { request in
        let call = calls.withLock { calls in
          defer { calls += 1 }
          return calls
        }
        let index: Int
        if call < responses.count {
          index = call
        } else {
          switch end.kind {
          case .repeatLast: index = responses.count - 1
          case .cycle: index = call % responses.count
          case .fail:
            throw DoppelError.invalidStub(
              "The stub answered all \(responses.count) responses of its sequence; this was call \(call + 1). Add responses, or write \"then\": \"repeatLast\" or \"cycle\"."
            )
          }
        }
        guard let renderer = renderers[index], case .handler(let render) = renderer.kind else {
          return responses[index]
        }
        return try await render.respond(request)
      }
    }
  }
}

/// What is wrong with one variable.
struct VariableProblem: Error, Sendable {
  let message: String
}

/// A template problem at a UTF-8 offset of the template text.
package struct TemplateProblem: Error, Sendable {
  package let offset: Int
  package let message: String
}

/// Seconds elapsed on a clock since this value was made.
struct ElapsedTime: Sendable {
  private let measure: @Sendable () -> Double

  init(_ clock: any Clock<Duration>) { measure = Self.measure(clock) }

  private static func measure<C: Clock<Duration>>(_ clock: C) -> @Sendable () -> Double {
    let start = clock.now
    return {
      let (seconds, attoseconds) = start.duration(to: clock.now).components
      return Double(seconds) + Double(attoseconds) / 1e18
    }
  }

  func seconds() -> Double { measure() }
}

/// JSON Pointer (RFC 6901) into a ``JSONValue``.
package enum JSONPointer {
  static func resolve(_ pointer: String, in value: JSONValue) -> JSONValue? {
    guard !pointer.isEmpty else { return value }
    var current = value
    for token in pointer.dropFirst().split(separator: "/", omittingEmptySubsequences: false) {
      let key = token.replacingOccurrences(of: "~1", with: "/").replacingOccurrences(of: "~0", with: "~")
      switch current {
      case .object(let object):
        guard let next = object[key] else { return nil }
        current = next
      case .array(let items):
        guard let index = Int(key), items.indices.contains(index) else { return nil }
        current = items[index]
      default:
        return nil
      }
    }
    return current
  }

  /// A string as its text; anything else as compact JSON.
  static func text(_ value: JSONValue) -> String {
    if case .string(let text) = value { return text }
    if case .number(let number) = value, let whole = Int64(exactly: number) { return String(whole) }
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    return (try? encoder.encode(value)).map { String(decoding: $0, as: UTF8.self) } ?? ""
  }
}
