import DoppelCore
@_spi(DoppelInternals) import DoppelToolkit
import Foundation

/// The matching rules of one side (request or response) of a Pact interaction, by category:
/// `path` holds matchers itself, `header`, `query` and `body` hold them by header name, query
/// name or JSON path (`$.items[0].id`).
struct PactRules {
  private var path: [JSONValue] = []
  private var keyed: [String: [String: [JSONValue]]] = [:]

  var isEmpty: Bool { path.isEmpty && keyed.isEmpty }

  mutating func addPath(_ matcher: JSONValue) {
    if !path.contains(matcher) { path.append(matcher) }
  }

  mutating func add(_ matcher: JSONValue, category: String, key: String) {
    if keyed[category]?[key]?.contains(matcher) == true { return }
    keyed[category, default: [:]][key, default: []].append(matcher)
  }

  /// `{"path": {"combine": "AND", "matchers": […]}, "body": {"$.id": {…}}}`.
  var json: JSONValue {
    func combined(_ matchers: [JSONValue]) -> JSONValue {
      ["combine": "AND", "matchers": .array(matchers)]
    }
    var object: [String: JSONValue] = [:]
    if !path.isEmpty { object["path"] = combined(path) }
    for (category, rules) in keyed {
      object[category] = .object(rules.mapValues(combined))
    }
    return .object(object)
  }

  static let type: JSONValue = ["match": "type"]

  static func regex(_ pattern: String) -> JSONValue { ["match": "regex", "regex": .string(pattern)] }
}

/// Regular expressions written for Pact's verifier, which reads Rust's syntax: only its
/// metacharacters are escaped.
enum PactRegex {
  static func escaped(_ text: some StringProtocol) -> String {
    var out = ""
    for character in text {
      if "\\.+*?()|[]{}^$#&-~".contains(character) { out.append("\\") }
      out.append(character)
    }
    return out
  }

  /// `/users/{id}` as `^/users/[^/]+$`; `nil` when `path` is not a template.
  static func template(_ path: String) -> String? {
    guard PathTemplate.isTemplate(path), case .success(let template) = PathTemplate.compile(path) else { return nil }
    let segments = template.segments.map { segment -> String in
      switch segment {
      case .literal(let text): return escaped(text)
      case .capture(_, let prefix, let suffix): return escaped(prefix) + "[^/]+" + escaped(suffix)
      }
    }
    return "^" + segments.joined(separator: "/") + "$"
  }

  /// A path glob (`*` within a segment, `**` across segments, `?` one character) as a regular
  /// expression, as ``Matcher/path(glob:)`` reads it.
  static func glob(_ glob: String) -> String {
    Pattern.globRegex(glob) { escaped($0) }
  }
}

/// JSON paths as Pact writes them: `$.items[0].id`, `$['a key']`.
enum PactJSONPath {
  static func appending(_ key: String, to path: String) -> String {
    let plain =
      !key.isEmpty
      && key.unicodeScalars.allSatisfy { $0.isASCII && (CharacterSet.alphanumerics.contains($0) || $0 == "_") }
    if plain { return path + "." + key }
    return path + "['" + key.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "'", with: "\\'")
      + "']"
  }

  /// The paths of every leaf (a string, number, Boolean or `null`, or an empty array or object) of
  /// `json`.
  static func leaves(of json: JSONValue, at path: String = "$") -> [String] {
    switch json {
    case .object(let object) where !object.isEmpty:
      return object.keys.sorted().flatMap { leaves(of: object[$0]!, at: appending($0, to: path)) }
    case .array(let array) where !array.isEmpty:
      return array.indices.flatMap { leaves(of: array[$0], at: path + "[\($0)]") }
    default:
      return [path]
    }
  }

  /// The paths of the strings in `json` that contain `marker`.
  static func strings(containing marker: String, in json: JSONValue, at path: String = "$") -> [String] {
    switch json {
    case .object(let object):
      return object.keys.sorted().flatMap { strings(containing: marker, in: object[$0]!, at: appending($0, to: path)) }
    case .array(let array):
      return array.indices.flatMap { strings(containing: marker, in: array[$0], at: path + "[\($0)]") }
    case .string(let text):
      return text.contains(marker) ? [path] : []
    default:
      return []
    }
  }

  /// The parts of `whole` that `subset` names (``JSONValue/contains(_:)`` holds between them):
  /// objects keep only the subset's keys, arrays go element by element.
  static func projection(of whole: JSONValue, onto subset: JSONValue) -> JSONValue {
    switch (whole, subset) {
    case (.object(let object), .object(let part)):
      var kept: [String: JSONValue] = [:]
      for (key, value) in part { kept[key] = object[key].map { projection(of: $0, onto: value) } ?? value }
      return .object(kept)
    case (.array(let array), .array(let part)) where array.count == part.count:
      return .array(zip(array, part).map { projection(of: $0, onto: $1) })
    default:
      return whole
    }
  }
}

/// Where a response template puts its `{{variables}}`: the JSON paths of its body, and its header
/// names.
enum PactTemplateShape {
  /// Stands for a variable while the template's body is read as JSON.
  private static let marker = "@@doppel-template@@"

  /// The JSON paths in `template` (a JSON body's text) whose values a variable fills in, or `[]`
  /// when the text is not JSON once the variables are set aside.
  static func templatedPaths(in template: String) -> [String] {
    var text = ""
    var inString = false
    var escaped = false
    var rest = Substring(template)
    while let character = rest.first {
      if character == "{", rest.hasPrefix("{{"), let close = rest.range(of: "}}") {
        text += inString ? marker : "\"" + marker + "\""
        rest = rest[close.upperBound...]
        escaped = false
        continue
      }
      if inString {
        if escaped {
          escaped = false
        } else if character == "\\" {
          escaped = true
        } else if character == "\"" {
          inString = false
        }
      } else if character == "\"" {
        inString = true
      }
      text.append(character)
      rest = rest.dropFirst()
    }
    guard let json = try? JSONValue(parsing: Data(text.utf8)) else { return [] }
    return PactJSONPath.strings(containing: marker, in: json)
  }
}
