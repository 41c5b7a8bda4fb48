@_spi(DoppelInternals) import DoppelToolkit
import Foundation

extension Response {
  /// This response as a template: `{{variables}}` in its body and header values are filled in from
  /// each request, as a manifest response with `"template": true` is (see the "Fixtures and
  /// scenarios" article for the variables).
  ///
  /// ```swift
  /// backend.stub(.get("/users/{id}"), Response.json(raw: #"{"id": "{{path.id}}", "at": "{{now}}"}"#).templated())
  /// ```
  ///
  /// In a JSON body (a `Content-Type` that names JSON), values are escaped as JSON string content.
  /// `uuid` and `random` come from a generator seeded with `seed`, so a run can be repeated
  /// exactly; `now` is the time on the backend's clock. Call it after setting the body and
  /// headers: those it finds then are the template. A file body (``file(_:status:headers:contentType:)``)
  /// is read for each request, as it is without a template, and its text is the template:
  ///
  /// ```swift
  /// backend.stub(.get("/users/{id}"), Response.file(fixturesURL.appending(path: "user.json")).templated())
  /// ```
  ///
  /// A variable that does not exist, or a body that is not UTF-8 text, makes the stub invalid,
  /// reported with the fix (for a file, its line and column; a file that is missing now, or
  /// changes later, is checked when a request reads it).
  /// A rendering that would fill in more than 16 MiB (body and header values together) stops as
  /// it reaches that cap, and the request fails with a ``DoppelError`` naming the stub, the cap
  /// and the fix. ``DoppelRemote`` sends a templated response as a manifest template.
  public func templated(seed: UInt64 = 0) -> Response {
    var copy = self
    copy.template = nil
    switch ResponseTemplate.make(from: copy, seed: seed) {
    case .success(let template):
      copy.template = TemplateMark(template: template, generator: Locked(SplitMix64(seed: seed)))
    case .failure(let problem):
      copy.body.source = .problem(problem)
    }
    return copy
  }
}

/// What ``Response/templated(seed:)`` attached to a response: its template and the generator its
/// random values come from (shared by copies of the response).
package struct TemplateMark: Sendable {
  package let template: ResponseTemplate
  let generator: Locked<SplitMix64>

  /// `response` filled in for `request`, keeping its timing, random parts and everything else.
  func render(_ response: Response, for request: Request, now: Date) -> Response {
    var rendered = template.render(request, now: now, generator: generator, onto: response)
    rendered.template = nil
    return rendered
  }
}

extension ResponseTemplate {
  /// The template of a response built in code, or the problem that makes it unusable.
  static func make(from response: Response, seed: UInt64) -> Result<ResponseTemplate, DoppelError> {
    func parsed(_ text: String, _ place: String) -> Result<[Piece], DoppelError> {
      parse(text, captures: nil).mapError {
        DoppelError.invalidStub("The template \(place) \"\(text)\": \($0.message)")
      }
    }
    var body: [Piece]?
    var bodyFile: FileTemplate?
    switch response.body.source {
    case .problem(let problem):
      return .failure(problem)
    case .file(let url, _):
      // Checked now when the file is there; read again for each request, as a file body is.
      let file = FileTemplate(url: url, captures: nil, removal: "remove .templated()")
      if case .success(let data) = file.read(), case .failure(let problem) = file.pieces(of: data) {
        return .failure(DoppelError.invalidStub(problem.sentence))
      }
      bodyFile = file
    case .data(let data):
      if !data.isEmpty {
        guard let text = String(data: data, encoding: .utf8) else {
          return .failure(
            DoppelError.invalidStub(
              "A templated response's body must be UTF-8 text; this one is \(data.count) bytes that are not.")
          )
        }
        switch parsed(text, "body") {
        case .success(let pieces): body = pieces
        case .failure(let problem): return .failure(problem)
        }
      }
    }
    var headers: [(name: String, pieces: [Piece])] = []
    for field in response.headers {
      switch parsed(field.value, "header \(field.name)") {
      case .success(let pieces):
        if pieces.contains(where: { if case .variable = $0 { true } else { false } }) {
          headers.append((field.name, pieces))
        }
      case .failure(let problem): return .failure(problem)
      }
    }
    let contentType = (response.headers["Content-Type"] ?? response.body.contentType ?? "").lowercased()
    return .success(
      ResponseTemplate(
        base: response, body: body, escapesJSON: contentType.contains("json"), headers: headers, seed: seed,
        bodyFile: bodyFile))
  }
}
