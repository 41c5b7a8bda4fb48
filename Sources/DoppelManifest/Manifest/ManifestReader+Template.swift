import DoppelCore
import DoppelRecording
@_spi(DoppelInternals) import DoppelToolkit
import Foundation

extension ManifestReader {
  /// The templates a stub's response asks for with `"template": true` (or `{"seed": 7}`), on the
  /// response or on responses of its sequence, checked now: an unknown variable is an error at its
  /// line and column (in the manifest, or in the fixture file whose text is the template).
  ///
  /// - Parameters:
  ///   - node: the stub's `response`, already read as a responder.
  ///   - request: the stub's `request`, whose path template's parameters `path.NAME` may use.
  ///   - responder: what the response reads as without the templates.
  func template(
    _ node: PositionedJSON, _ path: ManifestKeyPath, request: PositionedJSON, responder: Responder
  ) throws(ManifestProblem) -> StubTemplate? {
    guard case .object(let members) = node.value else { return nil }
    let captures = Self.pathParameters(of: request)
    if let sequence = members.first(where: { $0.key == "sequence" }), case .array(let items) = sequence.value.value,
      case .sequence(let responses, let end) = responder.kind
    {
      var templates: [ResponseTemplate?] = []
      for (index, item) in items.enumerated() {
        guard case .object(let itemMembers) = item.value, index < responses.count else {
          templates.append(nil)
          continue
        }
        templates.append(
          try single(
            Fields(node: item, path: path + "sequence" + index, members: itemMembers), captures: captures,
            base: responses[index]))
      }
      guard templates.contains(where: { $0 != nil }) else { return nil }
      return .sequence(responses, templates, end)
    }
    guard case .fixed(let base) = responder.kind else { return nil }
    return try single(Fields(node: node, path: path, members: members), captures: captures, base: base).map {
      .single($0)
    }
  }

  /// The template one response object asks for, if it does.
  private func single(_ fields: Fields, captures: [String], base: Response) throws(ManifestProblem)
    -> ResponseTemplate?
  {
    let path = fields.path
    guard let member = fields.members.first(where: { $0.key == "template" }) else { return nil }
    let templatePath = path + "template"
    var seed: UInt64 = 0
    switch member.value.value {
    case .bool(false): return nil
    case .bool(true): break
    case .object:
      let settings = try object(
        member.value, templatePath, known: ["seed"], what: "template settings ({\"seed\": 7})")
      if let node = settings["seed"] {
        seed = UInt64(
          try integer(node, templatePath + "seed", in: 0...Int.max, what: "a seed for random values (0 or more)"))
      }
    default:
      throw error(
        member.value, templatePath,
        "expected true (fill in {{variables}}) or settings such as {\"seed\": 7}, found \(member.value.kind).")
    }
    var body: [ResponseTemplate.Piece]?
    var bodyFile: FileTemplate?
    var escapesJSON = false
    if let json = fields["json"] {
      try checkStrings(in: json, path + "json", captures: captures)
      body = try pieces(json.serialized, json, path + "json", captures: captures, checked: true)
      escapesJSON = true
    } else if let text = fields["text"] {
      body = try pieces(try string(text, path + "text"), text, path + "text", captures: captures)
    } else if let file = fields["file"], case .file(let url, _) = base.body.source {
      bodyFile = try fileTemplate(url, file, path + "file", captures: captures)
      let contentType = base.headers["Content-Type"] ?? base.body.contentType ?? ""
      escapesJSON = contentType.lowercased().contains("json")
    }
    var headers: [(String, [ResponseTemplate.Piece])] = []
    if let node = fields["headers"], case .object(let headerMembers) = node.value {
      for header in headerMembers {
        let values: [PositionedJSON]
        if case .array(let items) = header.value.value { values = items } else { values = [header.value] }
        for value in values {
          let text = try string(value, path + "headers" + header.key)
          headers.append(
            (header.key, try pieces(text, value, path + "headers" + header.key, captures: captures)))
        }
      }
    }
    return ResponseTemplate(
      base: base, body: body, escapesJSON: escapesJSON, headers: headers.filter { piecesHaveVariables($0.1) },
      seed: seed, bodyFile: bodyFile)
  }

  /// The template that is the text of the fixture file at `url`, named by the manifest at `node`:
  /// read and checked now (a problem names the file, and the line and column in it), and read
  /// again for each request, as a file body is.
  private func fileTemplate(_ url: URL, _ node: PositionedJSON, _ path: ManifestKeyPath, captures: [String])
    throws(ManifestProblem) -> FileTemplate
  {
    let file = FileTemplate(url: url, captures: captures, removal: "remove \"template\"")
    let data: Data
    switch file.read() {
    case .success(let bytes): data = bytes
    case .failure(let problem): throw error(node, path, problem.message)
    }
    if case .failure(let problem) = file.pieces(of: data) { throw error(node, path, problem.message) }
    return file
  }

  private func piecesHaveVariables(_ pieces: [ResponseTemplate.Piece]) -> Bool {
    pieces.contains { if case .variable = $0 { return true } else { return false } }
  }

  /// Checks every string inside a JSON body, so an error points at the string that has it.
  private func checkStrings(in node: PositionedJSON, _ path: ManifestKeyPath, captures: [String])
    throws(ManifestProblem)
  {
    switch node.value {
    case .string(let text): _ = try pieces(text, node, path, captures: captures)
    case .array(let items):
      for (index, item) in items.enumerated() { try checkStrings(in: item, path + index, captures: captures) }
    case .object(let members):
      for member in members { try checkStrings(in: member.value, path + member.key, captures: captures) }
    default: break
    }
  }

  /// The pieces of `text`, written in the string at `node`; a problem points at the variable.
  private func pieces(
    _ text: String, _ node: PositionedJSON, _ path: ManifestKeyPath, captures: [String], checked: Bool = false
  ) throws(ManifestProblem) -> [ResponseTemplate.Piece] {
    switch ResponseTemplate.parse(text, captures: captures) {
    case .success(let pieces): return pieces
    case .failure(let problem):
      if checked { throw error(node, path, problem.message) }
      throw error(at: rawOffset(of: problem.offset, in: text, literalAt: node.offset), path, problem.message)
    }
  }

  /// Where, in the file, the `{{` at `offset` of the decoded `text` of the string literal at
  /// `literal` is: the same number of `{{` into the literal's bytes (escapes change the lengths).
  private func rawOffset(of offset: Int, in text: String, literalAt literal: Int) -> Int {
    let before = text.utf8.prefix(offset)
    var count = 0
    var previous: UInt8 = 0
    for byte in before {
      if byte == UInt8(ascii: "{") && previous == UInt8(ascii: "{") {
        count += 1
        previous = 0
      } else {
        previous = byte
      }
    }
    var index = literal + 1
    var seen = 0
    while index + 1 < bytes.count {
      if bytes[index] == UInt8(ascii: "{") && bytes[index + 1] == UInt8(ascii: "{") {
        if seen == count { return index }
        seen += 1
        index += 2
        continue
      }
      if bytes[index] == UInt8(ascii: "\\") { index += 1 } else if bytes[index] == UInt8(ascii: "\"") { break }
      index += 1
    }
    return literal
  }

  /// The `{name}` parameters of the URL or path a stub's request names.
  static func pathParameters(of request: PositionedJSON) -> [String] {
    var url: String?
    switch request.value {
    case .string(let text): url = text.split(separator: " ").last.map(String.init)
    case .object(let members):
      if case .string(let text)? = members.first(where: { $0.key == "url" })?.value.value { url = text }
    default: break
    }
    // Most URLs name no parameter: nothing to split.
    guard let url, url.utf8.contains(UInt8(ascii: "{")) else { return [] }
    var names: [String] = []
    var rest = Substring(url.split(separator: "?", maxSplits: 1).first ?? "")
    while let open = rest.firstIndex(of: "{"), let close = rest[open...].firstIndex(of: "}") {
      names.append(String(rest[rest.index(after: open)..<close]))
      rest = rest[rest.index(after: close)...]
    }
    return names
  }
}
