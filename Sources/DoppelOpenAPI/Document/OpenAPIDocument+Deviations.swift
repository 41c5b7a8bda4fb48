#if OpenAPI
  import Doppel
  import Foundation

  /// A part of a document that the OpenAPI standard does not allow but that published documents
  /// often have, and that Doppel reads anyway: what the standard says and how to write it, at the
  /// first place it occurs (with how many more places have it).
  ///
  /// ```text
  /// openapi.json:1204: warning: exclusiveMinimum: true is OpenAPI 3.0's form; … (and 11 more places like it)
  /// ```
  ///
  /// `doppel serve --strict` and `doppel lint` refuse a document that has any.
  public struct OpenAPIWarning: Sendable, Hashable, CustomStringConvertible {
    /// The file, as messages name it.
    public let file: String
    /// The line of the first place (from 1).
    public let line: Int
    /// What the standard says and how to write it.
    public let message: String
    /// How many other places of the document have the same deviation.
    public let otherPlaces: Int

    /// `api.yaml:12: warning: … (and 3 more places like it)`
    public var description: String {
      let more =
        otherPlaces == 0 ? "" : " (and \(otherPlaces) more \(otherPlaces == 1 ? "place" : "places") like it)"
      return "\(file):\(line): warning: \(message)\(more)"
    }
  }

  /// Collects the deviations of one document, one warning per kind in the order first met.
  final class Deviations {
    private var kinds: [String] = []
    private var first: [String: (file: String, line: Int, message: String)] = [:]
    private var counts: [String: Int] = [:]

    func note(_ kind: String, file: String, line: Int, _ message: @autoclosure () -> String) {
      if first[kind] == nil {
        kinds.append(kind)
        first[kind] = (file, line, message())
      }
      counts[kind, default: 0] += 1
    }

    var warnings: [OpenAPIWarning] {
      kinds.compactMap { kind in
        first[kind].map {
          OpenAPIWarning(file: $0.file, line: $0.line, message: $0.message, otherPlaces: (counts[kind] ?? 1) - 1)
        }
      }
    }
  }

  /// Writes a document's main file as JSON text for OpenAPIKit's structure check, with the
  /// deviations common in published documents written as the standard wants them (each noted):
  /// an operation or a `properties` that is a `$ref` to another file is written out, a 3.0-style
  /// boolean `exclusiveMinimum`/`exclusiveMaximum` in a 3.1 document becomes the bound, an integer
  /// bound beyond 64 bits is written as the largest one. Numbers keep the text they were written
  /// with, so integers stay integers; members keep their order.
  struct StructureWriter {
    let files: DocumentFiles
    let isVersion31: Bool
    let deviations: Deviations
    private(set) var bytes: [UInt8] = []
    /// How many more values may be written: a `$ref` written out where it is, in a document whose
    /// `properties` name themselves twice, would otherwise double at every level.
    private var budget = 8_000_000
    /// How many `$ref`s are being written out, one inside another.
    private var inlined = 0

    init(files: DocumentFiles, isVersion31: Bool, deviations: Deviations) {
      self.files = files
      self.isVersion31 = isVersion31
      self.deviations = deviations
      bytes.reserveCapacity(1 << 20)
    }

    static let methods: Set<String> = ["get", "put", "post", "delete", "options", "head", "patch", "trace"]
    private static let bounds: Set<String> = ["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"]
    /// Keys whose values are text, where a split description sometimes writes a `$ref`.
    private static let textKeys: Set<String> = ["description", "summary", "title", "termsOfService"]
    /// Keys whose values are data, not document structure: written as they are.
    private static let literalValues: Set<String> = ["example", "examples", "default", "enum", "const", "value"]

    enum Place {
      case any
      /// The value of a member of `paths`: a path item, whose method keys hold operations.
      case pathItem
      case literal
    }

    mutating func write(_ node: DocumentNode, in file: DocumentFiles.File, place: Place = .any, depth: Int = 0) {
      budget -= 1
      guard depth < 512, budget >= 0 else {
        bytes += Array("null".utf8)
        return
      }
      switch node.value {
      case .null: bytes += Array("null".utf8)
      case .bool(let flag): bytes += Array((flag ? "true" : "false").utf8)
      case .number(let number, let literal): writeNumber(number, literal: literal)
      case .string(let text): writeString(text)
      case .array(let items):
        bytes.append(UInt8(ascii: "["))
        for (offset, item) in items.enumerated() {
          if offset > 0 { bytes.append(UInt8(ascii: ",")) }
          write(item, in: file, place: place == .literal ? .literal : .any, depth: depth + 1)
        }
        bytes.append(UInt8(ascii: "]"))
      case .object(let members):
        writeObject(node, members, in: file, place: place, depth: depth)
      }
    }

    private mutating func writeObject(
      _ node: DocumentNode, _ members: [DocumentNode.Member], in file: DocumentFiles.File, place: Place, depth: Int
    ) {
      bytes.append(UInt8(ascii: "{"))
      var first = true
      func separate() {
        if !first { bytes.append(UInt8(ascii: ",")) }
        first = false
      }
      for member in members {
        if place == .literal {
          separate()
          writeString(member.key)
          bytes.append(UInt8(ascii: ":"))
          write(member.value, in: file, place: .literal, depth: depth + 1)
          continue
        }
        var value = member.value
        var valueFile = file
        let key = member.key
        var wroteOut = false
        defer { if wroteOut { inlined -= 1 } }
        if (place == .pathItem && Self.methods.contains(key)) || key == "properties", inlined < 16,
          let reference = value["$ref"]?.string, value.members.count == 1,
          let target = try? files.resolve(reference, from: file, line: value.line(of: "$ref"), keyPath: key)
        {
          let what = key == "properties" ? "`properties`" : "an operation (`\(key):`)"
          deviations.note(
            key == "properties" ? "properties-ref" : "operation-ref", file: file.name, line: member.line,
            "\(what) is a $ref (\"\(reference)\"), which OpenAPI does not allow there: the standard wants the object itself, and other tools will not follow it. Doppel reads the file it names; bundle the description (for example with `redocly bundle`) or write the object in place."
          )
          (value, valueFile) = (target.node, target.file)
          wroteOut = true
          inlined += 1
        }
        if let reference = value["$ref"]?.string, value.members.count == 1, Self.textKeys.contains(key),
          let target = try? files.resolve(reference, from: file, line: value.line(of: "$ref"), keyPath: key),
          !target.node.isObject
        {
          // `description: {$ref: description.yml#/introduction}`: text kept in a file of its own.
          deviations.note(
            "text-ref", file: file.name, line: member.line,
            "`\(key)` is a $ref (\"\(reference)\"), which OpenAPI does not allow there: the standard wants the text itself, and other tools will not follow it. Doppel reads what it names; bundle the description or write the text in place."
          )
          (value, valueFile) = (target.node, target.file)
        }
        if Self.bounds.contains(key), case .bool(let flag) = value.value, key.hasPrefix("exclusive") {
          // 3.0's form: a flag on `minimum`/`maximum`. OpenAPIKit reads it in a 3.0 document only.
          guard isVersion31 else {
            separate()
            writeString(key)
            bytes += Array(":\(flag)".utf8)
            continue
          }
          let bound = key == "exclusiveMinimum" ? "minimum" : "maximum"
          deviations.note(
            "exclusive-flag", file: file.name, line: member.line,
            "\(key): \(flag) is OpenAPI 3.0's form; in OpenAPI 3.1 (JSON Schema 2020-12) \(key) is the bound itself. Write `\(key): <the bound>` instead of `\(bound): <the bound>` with `\(key): true` (and drop `\(key): false`)."
          )
          if flag, let limit = node[bound] {
            separate()
            writeString(key)
            bytes.append(UInt8(ascii: ":"))
            write(limit, in: file, depth: depth + 1)
          }
          continue
        }
        if isVersion31, key == "minimum" || key == "maximum",
          node[key == "minimum" ? "exclusiveMinimum" : "exclusiveMaximum"]?.bool == true
        {
          // Written as the exclusive bound above.
          continue
        }
        separate()
        writeString(key)
        bytes.append(UInt8(ascii: ":"))
        if Self.bounds.contains(key), case .number(let number, let literal) = value.value,
          Self.isBeyondInt64(number, literal: literal)
        {
          let largest = number < 0 ? "-9223372036854775808" : "9223372036854775807"
          deviations.note(
            "integer-bound", file: file.name, line: member.line,
            "\(key): \(literal) is beyond the 64-bit integers (it is likely \(largest) rounded by the program that wrote the document); Doppel reads it as \(largest). Write the exact bound, \(largest)."
          )
          bytes += Array(largest.utf8)
          continue
        }
        let next: Place =
          Self.literalValues.contains(key) ? .literal : (key.hasPrefix("/") && place == .any ? .pathItem : .any)
        write(value, in: valueFile, place: next, depth: depth + 1)
      }
      bytes.append(UInt8(ascii: "}"))
    }

    /// Whether a whole number is outside `Int64` (as OpenAPIKit reads bounds of integer schemas).
    static func isBeyondInt64(_ number: Double, literal: String) -> Bool {
      guard number.isFinite, number == number.rounded(), abs(number) >= 9.2e18 else { return false }
      return Int64(literal) == nil
    }

    private mutating func writeNumber(_ number: Double, literal: String) {
      // JSON's own number syntax as written (YAML's `0x1F`, `1_000`, `.inf` are not JSON).
      if Self.isJSONNumber(literal) {
        bytes += Array(literal.utf8)
      } else if number.isFinite {
        bytes += Array(SchemaValidator.number(number).utf8)
      } else {
        bytes += Array("null".utf8)
      }
    }

    static func isJSONNumber(_ text: String) -> Bool {
      var index = text.utf8.startIndex
      let utf8 = text.utf8
      func digits() -> Int {
        var count = 0
        while index != utf8.endIndex, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(utf8[index]) {
          index = utf8.index(after: index)
          count += 1
        }
        return count
      }
      if index != utf8.endIndex, utf8[index] == UInt8(ascii: "-") { index = utf8.index(after: index) }
      guard digits() > 0 else { return false }
      if index != utf8.endIndex, utf8[index] == UInt8(ascii: ".") {
        index = utf8.index(after: index)
        guard digits() > 0 else { return false }
      }
      if index != utf8.endIndex, utf8[index] == UInt8(ascii: "e") || utf8[index] == UInt8(ascii: "E") {
        index = utf8.index(after: index)
        if index != utf8.endIndex, utf8[index] == UInt8(ascii: "+") || utf8[index] == UInt8(ascii: "-") {
          index = utf8.index(after: index)
        }
        guard digits() > 0 else { return false }
      }
      return index == utf8.endIndex
    }

    private mutating func writeString(_ text: String) {
      bytes.append(UInt8(ascii: "\""))
      for byte in text.utf8 {
        switch byte {
        case UInt8(ascii: "\""): bytes += [UInt8(ascii: "\\"), UInt8(ascii: "\"")]
        case UInt8(ascii: "\\"): bytes += [UInt8(ascii: "\\"), UInt8(ascii: "\\")]
        case 0x0A: bytes += [UInt8(ascii: "\\"), UInt8(ascii: "n")]
        case 0x0D: bytes += [UInt8(ascii: "\\"), UInt8(ascii: "r")]
        case 0x09: bytes += [UInt8(ascii: "\\"), UInt8(ascii: "t")]
        case 0..<0x20: bytes += Array(String(format: "\\u%04x", Int(byte)).utf8)
        default: bytes.append(byte)
        }
      }
      bytes.append(UInt8(ascii: "\""))
    }
  }
#endif
