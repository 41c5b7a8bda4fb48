#if OpenAPI
  import Doppel
  import Foundation

  extension OpenAPIDocument {
    /// Everything the document contradicts in `request` and, when given, the response to it:
    /// path, method, parameters, body and content type of the request; a documented status,
    /// required headers, content type and body of the response. Empty when both conform.
    ///
    /// - Parameters:
    ///   - request: the request as sent.
    ///   - status: the response's status, or `nil` to check the request alone.
    ///   - headers: the response's headers.
    ///   - body: the response's body.
    public func violations(
      in request: Request, status: Int? = nil, headers: HTTPHeaders = [:], body: Data = Data()
    ) -> [OpenAPIViolation] {
      let endpoint = "\(request.method.rawValue) \(request.path)"
      switch lookup(method: request.method, path: request.path) {
      case .unknownPath:
        return [unknownPath(request.path, endpoint: endpoint)]
      case .wrongMethod(let template, let methods, let location):
        return [
          wrongMethod(request.method, template: template, methods: methods, location: location, endpoint: endpoint)
        ]
      case .found(let operation, let captures):
        var found = check(request, operation, captures)
        if let status { found += check(status: status, headers: headers, body: body, operation) }
        return found
      }
    }

    /// ``violations(in:status:headers:body:)`` for a `Response` (a stub's, or a
    /// recorded one), with the headers it is delivered with (a body made as JSON or text gets its
    /// `Content-Type` then). A response that is an error, or whose body cannot be read, is checked
    /// for its request alone.
    public func violations(in request: Request, response: Response) -> [OpenAPIViolation] {
      guard !response.isFailure, let body = try? response.bodyData() else { return violations(in: request) }
      return violations(
        in: request, status: response.status, headers: Self.deliveredHeaders(response, body: body), body: body)
    }

    /// `response`'s headers with the `Content-Type` delivery adds to a non-empty body.
    static func deliveredHeaders(_ response: Response, body: Data) -> HTTPHeaders {
      var headers = response.headers
      if headers["Content-Type"] == nil, !body.isEmpty, let type = response.impliedContentType {
        headers.add("Content-Type", type)
      }
      return headers
    }

    // MARK: Request

    func check(_ request: Request, _ operation: Operation, _ captures: [String: String]) -> [OpenAPIViolation] {
      var found = checkSecurity(request, operation)
      found += checkParameters(
        operation, captures: captures, query: { Self.queryItems(of: request) }, headers: request.headers)
      let body = request.body ?? Data()
      guard let documented = operation.body else {
        if !body.isEmpty {
          found.append(
            violation(
              operation, "request body", "the operation takes no request body, but \(body.count) bytes were sent",
              at: operation.location))
        }
        return found
      }
      if body.isEmpty {
        if documented.required {
          found.append(
            violation(
              operation, "request body", "the required request body is missing",
              at: documented.location.appending("required")))
        }
        return found
      }
      found += checkBody(
        body, contentType: request.headers["Content-Type"], content: documented.content, part: "request body",
        location: documented.location.appending("content"), operation: operation, direction: .request)
      return found
    }

    /// A violation when the request carries none of the alternatives of credentials the
    /// operation requires (only their presence is checked).
    func checkSecurity(_ request: Request, _ operation: Operation) -> [OpenAPIViolation] {
      guard !operation.security.isEmpty else { return [] }
      func carries(_ credential: Operation.Credential) -> Bool {
        switch credential.place {
        case "header": return request.headers[credential.name]?.isEmpty == false
        case "query": return Self.queryItems(of: request).contains { $0.name == credential.name }
        case "cookie":
          return request.headers.values(for: "Cookie").contains { header in
            header.split(separator: ";").contains {
              $0.trimmingCharacters(in: .whitespaces).hasPrefix("\(credential.name)=")
            }
          }
        default: return true
        }
      }
      if operation.security.contains(where: { $0.allSatisfy(carries) }) { return [] }
      let wanted = operation.security.map { alternative in
        alternative.map { "the \($0.place) \($0.place == "header" ? "" : "item ")\"\($0.name)\" (\($0.scheme))" }
          .joined(separator: " and ")
      }
      return [
        violation(
          operation, "request security",
          "the request carries no credentials the operation requires; send \(wanted.joined(separator: ", or "))",
          at: operation.location)
      ]
    }

    /// The violations of `operation`'s parameters: a required one missing, or a value its schema
    /// refuses. With `pathOnly`, for a stub, only the path parameters given are checked.
    func checkParameters(
      _ operation: Operation, captures: [String: String], query readQuery: () -> [URLQueryItem], headers: HTTPHeaders,
      pathOnly: Bool = false
    ) -> [OpenAPIViolation] {
      var found: [OpenAPIViolation] = []
      // The query is parsed only for an operation that has query parameters.
      var parsedQuery: [URLQueryItem]?
      func query() -> [URLQueryItem] {
        if let parsedQuery { return parsedQuery }
        let items = readQuery()
        parsedQuery = items
        return items
      }
      let validator = SchemaValidator(table: table, direction: .request)
      for parameter in operation.parameters where !pathOnly || parameter.place == "path" {
        // Made only for a violation: most parameters pass.
        var part: String { "request \(parameter.place) parameter \(parameter.name)" }
        let values: [String]
        switch parameter.place {
        case "path": values = captures[parameter.name].map { [$0] } ?? []
        case "query": values = query().filter { $0.name == parameter.name }.map { $0.value ?? "" }
        case "header": values = headers.values(for: parameter.name)
        default: continue
        }
        if values.isEmpty {
          // A stub's path template leaves the path parameters it does not give to any value.
          if parameter.required && !pathOnly {
            found.append(
              violation(
                operation, part, "the required \(parameter.place) parameter \"\(parameter.name)\" is missing",
                at: parameter.location))
          }
          continue
        }
        guard let schema = parameter.schema else { continue }
        if values.count > 1, parameter.place != "header", !(validator.resolved(schema).types ?? []).contains("array") {
          found.append(
            violation(
              operation, part,
              "the \(parameter.place) parameter \"\(parameter.name)\" is given \(values.count) times; the document describes one value",
              at: parameter.location))
          continue
        }
        for failure in validator.validate(coerce(values, to: schema), against: schema) {
          found.append(
            violation(
              operation, part, failure.rule, at: failure.location, jsonPath: failure.path == "$" ? nil : failure.path))
        }
      }
      return found
    }

    // MARK: Response

    /// The violations of a response with `status`, `headers` and `body` to `operation`.
    func check(status: Int, headers: HTTPHeaders, body: Data, _ operation: Operation) -> [OpenAPIViolation] {
      guard let reply = operation.reply(for: status) else {
        return [
          violation(
            operation, "response \(status)",
            "the status \(status) is not documented; the operation documents \(operation.replies.map(\.status).joined(separator: ", "))",
            at: operation.responsesLocation)
        ]
      }
      var found: [OpenAPIViolation] = []
      let validator = SchemaValidator(table: table, direction: .response)
      for header in reply.headers where header.name.lowercased() != "content-type" {
        var part: String { "response \(status) header \(header.name)" }
        let values = headers.values(for: header.name)
        if values.isEmpty {
          if header.required {
            found.append(
              violation(operation, part, "the required header \"\(header.name)\" is missing", at: header.location))
          }
          continue
        }
        guard let schema = header.schema else { continue }
        for failure in validator.validate(coerce(values, to: schema), against: schema) {
          found.append(
            violation(operation, part, failure.rule, at: failure.location))
        }
      }
      guard !body.isEmpty else { return found }
      guard !reply.content.isEmpty else {
        found.append(
          violation(
            operation, "response \(status) body",
            "the response has a body of \(body.count) bytes, but the document describes none for \(reply.status)",
            at: reply.location))
        return found
      }
      found += checkBody(
        body, contentType: headers["Content-Type"], content: reply.content, part: "response \(status) body",
        location: reply.location.appending("content"), operation: operation, direction: .response)
      return found
    }

    // MARK: Bodies

    private func checkBody(
      _ body: Data, contentType: String?, content: [Operation.MediaType], part: String, location: DocumentLocation,
      operation: Operation, direction: SchemaValidator.Direction
    ) -> [OpenAPIViolation] {
      func violation(_ rule: String, _ path: String? = nil, _ at: DocumentLocation) -> OpenAPIViolation {
        self.violation(operation, part, rule, at: at, jsonPath: path)
      }
      guard !content.isEmpty else { return [] }
      let allowed = content.map(\.type).joined(separator: ", ")
      guard let contentType else {
        return [violation("the body has no Content-Type header; the document allows \(allowed)", nil, location)]
      }
      guard let media = content.first(where: { $0.accepts(contentType) }) else {
        return [
          violation("the content type \(contentType) is not documented; the document allows \(allowed)", nil, location)
        ]
      }
      if let schema = media.schema, let form = Self.formFields(body, contentType: contentType, media: media) {
        // A form or a multipart body: its fields as an object, each read as its schema says.
        guard let fields = form else {
          return [violation("the body is not a well-formed \(media.base) body", nil, media.location)]
        }
        let value = formValue(fields, schema: schema)
        return SchemaValidator(table: table, direction: direction).validate(value, against: schema).map {
          violation($0.rule, $0.path, $0.location)
        }
      }
      guard media.isJSON, let schema = media.schema else { return [] }
      let bytes = [UInt8](body)
      let value: JSONTape
      do {
        // The common body in one quick pass; anything unusual (or wrong) the careful way.
        if let quick = FastJSON.tape(bytes) {
          value = quick
        } else {
          value = JSONTape(try PositionedJSONParser.parse(bytes).jsonValue)
        }
      } catch {
        let position = TextPosition(offset: error.offset, in: bytes)
        return [violation("the body is not valid JSON: \(error.message) at \(position)", nil, media.location)]
      }
      return SchemaValidator(table: table, direction: direction).validate(value, against: schema).map {
        violation($0.rule, $0.path, $0.location)
      }
    }

    // MARK: Helpers

    /// The query items of `request`, as `URLComponents` reads them (split at `&` and the first `=`,
    /// percent escapes decoded, `+` kept), without building `URLComponents`.
    static func queryItems(of request: Request) -> [URLQueryItem] {
      guard let query = request.url.query(percentEncoded: true), !query.isEmpty else { return [] }
      // Split as bytes (`&` and `=` are ASCII): splitting the string itself would find its
      // characters' boundaries first, which costs more than the rest of checking the parameters.
      func decoded(_ part: Substring.UTF8View) -> String {
        let text = String(Substring(part))
        guard part.contains(UInt8(ascii: "%")) else { return text }
        return text.removingPercentEncoding ?? text
      }
      return query.utf8.split(separator: UInt8(ascii: "&"), omittingEmptySubsequences: false).map { item in
        guard let equals = item.firstIndex(of: UInt8(ascii: "=")) else {
          return URLQueryItem(name: decoded(item), value: nil)
        }
        return URLQueryItem(name: decoded(item[..<equals]), value: decoded(item[item.index(after: equals)...]))
      }
    }

    /// ` (under the server path /v1)`, ` (under the server paths /v2, /v1)`, or nothing for a
    /// document served at the host's root.
    var serverPathsNote: String {
      let paths = basePaths.filter { !$0.isEmpty }
      if paths.isEmpty { return "" }
      return " (under the server path\(paths.count == 1 ? "" : "s") \(paths.joined(separator: ", ")))"
    }

    /// A request path that no path of the document describes.
    func unknownPath(_ path: String, endpoint: String) -> OpenAPIViolation {
      OpenAPIViolation(
        operation: nil, endpoint: endpoint, part: "request", jsonPath: nil,
        rule: "no path in \(name) matches \(path)\(serverPathsNote)",
        location: pathsLocation)
    }

    /// A documented path without an operation for `method`.
    func wrongMethod(
      _ method: HTTPMethod, template: String, methods: [String], location: DocumentLocation, endpoint: String
    ) -> OpenAPIViolation {
      OpenAPIViolation(
        operation: nil, endpoint: endpoint, part: "request", jsonPath: nil,
        rule: "\(template) has no \(method.rawValue) operation; it documents \(methods.joined(separator: ", "))",
        location: location)
    }

    func endpoint(_ operation: Operation) -> String { "\(operation.method.rawValue) \(operation.template)" }

    /// A violation of `operation`, in `part`, of the rule at `location`.
    func violation(
      _ operation: Operation, _ part: String, _ rule: String, at location: DocumentLocation, jsonPath: String? = nil
    ) -> OpenAPIViolation {
      OpenAPIViolation(
        operation: operation.name, endpoint: endpoint(operation), part: part, jsonPath: jsonPath, rule: rule,
        location: location)
    }

    /// The fields of a `multipart/form-data` or `application/x-www-form-urlencoded` body, in
    /// order: `nil` for a body of another media type, `.some(nil)` for one that is not well formed.
    static func formFields(_ body: Data, contentType: String, media: Operation.MediaType) -> [(String, String)]?? {
      switch media.base {
      case "application/x-www-form-urlencoded":
        let text = String(decoding: body, as: UTF8.self)
        return .some(
          text.split(separator: "&").map { pair in
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            func decoded(_ part: Substring) -> String {
              String(part).replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? String(part)
            }
            return (decoded(parts[0]), parts.count > 1 ? decoded(parts[1]) : "")
          })
      case "multipart/form-data":
        return .some(multipartFields(body, contentType: contentType))
      default:
        return nil
      }
    }

    /// The named parts of a multipart body (as text), or `nil` when it has no boundary or is cut.
    static func multipartFields(_ body: Data, contentType: String) -> [(String, String)]? {
      guard
        let boundary = contentType.split(separator: ";").lazy.map({ $0.trimmingCharacters(in: .whitespaces) })
          .first(where: { $0.lowercased().hasPrefix("boundary=") })?.dropFirst("boundary=".count)
          .trimmingCharacters(in: CharacterSet(charactersIn: "\""))
      else { return nil }
      let bytes = [UInt8](body)
      let delimiter = Array("--\(boundary)".utf8)
      var fields: [(String, String)] = []
      let starts = bytes.ranges(of: delimiter).map(\.lowerBound)
      guard starts.count >= 2 else { return nil }
      for (start, end) in zip(starts, starts.dropFirst()) {
        let part = bytes[(start + delimiter.count)..<end]
        guard let split = part.firstRange(of: [13, 10, 13, 10]) else { continue }
        let head = String(decoding: part[..<split.lowerBound], as: UTF8.self)
        var content = Array(part[split.upperBound...])
        if content.suffix(2) == [13, 10] { content.removeLast(2) }
        guard
          let disposition = head.split(separator: "\r\n").first(where: {
            $0.lowercased().hasPrefix("content-disposition:")
          }),
          let nameRange = disposition.range(of: "name=\"")
        else { continue }
        let rest = disposition[nameRange.upperBound...]
        let name = String(rest.prefix { $0 != "\"" })
        fields.append((name, String(decoding: content, as: UTF8.self)))
      }
      return fields
    }

    /// A form's fields as the object its schema describes: each field read as its property's
    /// schema says (numbers, booleans, JSON for an object or an array), repeated fields as arrays.
    func formValue(_ fields: [(String, String)], schema index: Int) -> JSONValue {
      let validator = SchemaValidator(table: table, direction: .request)
      let schema = validator.resolved(index)
      var grouped: [String: [String]] = [:]
      var order: [String] = []
      for (name, value) in fields {
        if grouped[name] == nil { order.append(name) }
        grouped[name, default: []].append(value)
      }
      var members: [String: JSONValue] = [:]
      for name in order {
        let values = grouped[name] ?? []
        guard let property = schema.properties.first(where: { $0.name == name }) else {
          members[name] = .string(values[0])
          continue
        }
        let target = validator.resolved(property.schema)
        let types = target.types ?? (target.properties.isEmpty ? [] : ["object"])
        if types.contains("object") || (types.contains("array") && values[0].hasPrefix("[")) {
          members[name] = (try? JSONValue(parsing: Data(values[0].utf8))) ?? .string(values[0])
        } else {
          members[name] = coerce(values, to: property.schema)
        }
      }
      return .object(members)
    }

    /// A parameter's text as the JSON value its schema describes: `"7"` as the number 7 for an
    /// integer, `"true"` as true for a boolean, repeated or comma-separated values as an array.
    func coerce(_ values: [String], to index: Int) -> JSONValue {
      let validator = SchemaValidator(table: table, direction: .request)
      let schema = validator.resolved(index)
      let types = schema.types ?? []
      if types.contains("array") {
        let parts = values.count == 1 ? values[0].split(separator: ",").map(String.init) : values
        let itemSchema = schema.items
        return .array(parts.map { part in itemSchema.map { item in coerce([part], to: item) } ?? .string(part) })
      }
      let text = values[0]
      if types.contains("integer") || types.contains("number"), let number = Double(text), number.isFinite {
        return .number(number)
      }
      if types.contains("boolean"), text == "true" || text == "false" { return .bool(text == "true") }
      if types.contains("null"), text.isEmpty { return .null }
      return .string(text)
    }
  }
#endif
