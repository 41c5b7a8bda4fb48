import DoppelCore
import DoppelRecording
@_spi(DoppelInternals) import DoppelToolkit
import Foundation

/// A HAR cassette written as a manifest (`doppel convert`, `doppel record --to-manifest`): one
/// stub per distinct request, that answers what replaying the cassette answers.
///
/// Requests are grouped as ``Cassette/Matching/methodAndURL`` groups them (the method, the URL's
/// scheme, host, port and path, and the query, in any order); a request recorded more than once
/// becomes a `sequence` of its answers, in recorded order, repeating the last. Each stub's
/// `request` names the method, the absolute URL and, when the query tells apart two stubs of the
/// same path or the request had one, `queryExactly`. A response's status, headers and
/// `contentType` are written as recorded (less `Content-Length`, which the body sets); a UTF-8
/// text body up to `inlineLimit` bytes is written inline as `text`, any other body into a file of
/// `bodyFolder`, named by the stub's number and its path. An entry that got no response becomes
/// `{"error": code}`. The entries are redacted with `redaction` first, as recording redacts them.
package struct CassetteManifest: Sendable {
  /// A body file to write, `name` relative to the manifest's folder (`api-fixtures/003-users.json`).
  package struct BodyFile: Sendable, Equatable {
    /// The path relative to the manifest's folder: the body folder, a slash, a file name.
    package let name: String
    /// The body.
    package let data: Data
  }

  /// The manifest's JSON, ending with a newline.
  package let manifest: Data
  /// The body files the manifest names.
  package let bodyFiles: [BodyFile]
  /// How many stubs the manifest has.
  package let stubCount: Int

  /// Bodies of more bytes than this go to a file by default: 4 KiB.
  package static let defaultInlineLimit = 4096

  /// The folder beside the manifest at `url` that holds its body files: `api-fixtures` for
  /// `api.json`.
  package static func bodyFolder(forManifest url: URL) -> String {
    url.deletingPathExtension().lastPathComponent + "-fixtures"
  }

  /// Converts `cassette`.
  ///
  /// - Parameters:
  ///   - source: what the manifest's `description` says it was made from (the HAR's name).
  ///   - bodyFolder: the folder, relative to the manifest, of the body files (one path component).
  ///   - inlineLimit: bodies of more bytes than this go to a file; 0 puts every body in one.
  /// - Throws: ``DoppelError`` naming each entry that cannot be replayed (as replaying the
  ///   cassette would).
  package init(
    cassette: Cassette, source: String, bodyFolder: String, inlineLimit: Int = defaultInlineLimit,
    redaction: Redaction = .default
  ) throws {
    var problems: [String] = []
    var groups = ReplayGroups<(response: Response, error: String?)>()
    // Redacted whole, as a cassette is when it is saved: a secret found in one entry is replaced
    // where it recurs in the others too. A cassette that cannot be written as JSON (a time that
    // is not a finite number) is redacted an entry at a time.
    let entries = (try? redaction.redacted(cassette).entries) ?? cassette.entries.map(redaction.redact)
    for (index, entry) in entries.enumerated() {
      let request: Request
      let response: Response
      do {
        request = try entry.recordedRequest()
        response = try entry.replayResponse(for: HTTPMethod(entry.request.method))
      } catch {
        problems.append(error.message(place: source, index: index))
        continue
      }
      var failure: String?
      if entry.response.status == 0 {
        let code = HARFailure.error(named: entry.response.extra["_error"], url: entry.request.url).code
        failure = URLErrorCodeName.all.first { $0.code == code }?.name ?? "networkConnectionLost"
      }
      groups.add((response, failure), for: request, .methodAndURL)
    }
    guard problems.isEmpty else { throw DoppelError.cassette(problems.joined(separator: "\n")) }
    // A path recorded both with and without a query gets `queryExactly` on every stub, so that
    // neither answers the other's requests.
    var queriesOfPath: [String: Int] = [:]
    for group in groups.groups { queriesOfPath[Self.pathKey(group.request), default: 0] += 1 }
    var files: [BodyFile] = []
    var stubs: [Any] = []
    for (number, group) in groups.groups.enumerated() {
      var writer = BodyWriter(
        folder: bodyFolder, stem: String(format: "%03d", number + 1) + Self.slug(group.request.path),
        inlineLimit: inlineLimit)
      var answers: [Any] = []
      for (response, failure) in group.members {
        answers.append(try failure.map { ["error": $0] } ?? writer.response(response))
      }
      files += writer.files
      stubs.append([
        "request": Self.request(group.request, exactQuery: queriesOfPath[Self.pathKey(group.request)]! > 1),
        "response": answers.count == 1 ? answers[0] : ["sequence": answers],
      ])
    }
    let document: [String: Any] = [
      "description":
        "Converted from \(source) by doppel convert: \(stubs.count) \(stubs.count == 1 ? "stub" : "stubs").",
      "stubs": stubs,
    ]
    var data = try JSONSerialization.data(
      withJSONObject: document, options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes])
    data.append(0x0A)
    manifest = data
    bodyFiles = files
    stubCount = stubs.count
  }

  // MARK: Private

  private static func pathKey(_ request: Request) -> String {
    "\(request.method) \(ReplayKey.origin(request))\(request.path)"
  }

  /// The stub's `request`: method and URL, or where a secret was redacted from the path, the
  /// host and a glob with `*` in its place (as a cassette matches any text there).
  private static func request(_ request: Request, exactQuery: Bool) -> [String: Any] {
    var object: [String: Any] = ["method": request.method.rawValue]
    if request.path.contains(Redaction.marker) {
      object["host"] = request.host
      object["pathGlob"] = request.path.replacingOccurrences(of: Redaction.marker, with: "*")
    } else {
      // As sent: a manifest's URL is percent-encoded.
      let path = URLComponents(url: request.url, resolvingAgainstBaseURL: false)?.percentEncodedPath ?? request.path
      object["url"] = ReplayKey.origin(request) + (path.isEmpty ? "/" : path)
    }
    let items = ReplayKey.query(request, ignoring: [])
    // A redacted value matches any value in a cassette: the manifest asks for the other items.
    let redacted = items.contains { $0.value.contains(Redaction.marker) }
    guard exactQuery || !items.isEmpty else { return object }
    var query: [String: Any] = [:]
    for item in items where !item.value.contains(Redaction.marker) {
      switch query[item.name] {
      case nil: query[item.name] = item.value
      case let values as [String]: query[item.name] = values + [item.value]
      case let value as String: query[item.name] = [value, item.value]
      default: break
      }
    }
    object[redacted ? "query" : "queryExactly"] = query
    return object
  }

  /// `-users-7` for `/users/7`: letters, digits, dots and dashes of the path, at most 40.
  private static func slug(_ path: String) -> String {
    var slug = ""
    for scalar in path.unicodeScalars {
      let kept = scalar.isASCII && (CharacterSet.alphanumerics.contains(scalar) || scalar == "." || scalar == "_")
      slug.append(kept ? Character(scalar) : "-")
    }
    let collapsed = slug.split(separator: "-", omittingEmptySubsequences: true).joined(separator: "-")
    let trimmed = String(collapsed.prefix(40)).trimmingCharacters(in: CharacterSet(charactersIn: ".-"))
    return trimmed.isEmpty ? "" : "-" + trimmed
  }
}

/// Writes one stub's responses, putting bodies that are not short UTF-8 text into files.
private struct BodyWriter {
  let folder: String
  let stem: String
  let inlineLimit: Int
  var files: [CassetteManifest.BodyFile] = []

  mutating func response(_ response: Response) throws -> [String: Any] {
    var object: [String: Any] = [:]
    if response.status != 200 { object["status"] = response.status }
    var headers: [(name: String, values: [String])] = []
    for field in response.headers {
      let lowered = field.name.lowercased()
      guard lowered != "content-type", lowered != "content-length" else { continue }
      if let index = headers.firstIndex(where: { $0.name.lowercased() == lowered }) {
        headers[index].values.append(field.value)
      } else {
        headers.append((field.name, [field.value]))
      }
    }
    if !headers.isEmpty {
      object["headers"] = Dictionary(
        headers.map { ($0.name, $0.values.count == 1 ? $0.values[0] as Any : $0.values as Any) },
        uniquingKeysWith: { first, _ in first })
    }
    let contentType = response.headers["Content-Type"]
    if let contentType { object["contentType"] = contentType }
    let body = try response.bodyData()
    guard !body.isEmpty else { return object }
    if body.count <= inlineLimit, !body.contains(0), let text = String(data: body, encoding: .utf8) {
      object["text"] = text
      return object
    }
    let suffix = files.isEmpty ? "" : "-\(files.count + 1)"
    let name = "\(folder)/\(stem)\(suffix).\(Self.fileExtension(for: contentType))"
    files.append(CassetteManifest.BodyFile(name: name, data: body))
    object["file"] = name
    return object
  }

  /// An extension for a body of `contentType`: `json`, `html`, … or `bin`.
  static func fileExtension(for contentType: String?) -> String {
    let type = (contentType ?? "").split(separator: ";").first.map { $0.trimmingCharacters(in: .whitespaces) } ?? ""
    let lowered = type.lowercased()
    let known: [String: String] = [
      "text/html": "html", "text/plain": "txt", "text/css": "css", "text/csv": "csv", "text/xml": "xml",
      "application/xml": "xml", "application/javascript": "js", "text/javascript": "js", "image/png": "png",
      "image/jpeg": "jpg", "image/gif": "gif", "image/webp": "webp", "image/svg+xml": "svg",
      "application/pdf": "pdf",
    ]
    if let known = known[lowered] { return known }
    if lowered == "application/json" || lowered.hasSuffix("+json") { return "json" }
    return "bin"
  }
}
