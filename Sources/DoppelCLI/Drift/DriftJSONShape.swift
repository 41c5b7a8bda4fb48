#if Server
  import Doppel

  /// The shape of a JSON value for `doppel drift`: which types appear at each place, the fields of
  /// its objects and the merged shape of its arrays' elements. Two answers have the same shape when
  /// the same fields hold the same types, whatever their values.
  struct DriftJSONShape: Equatable {
    /// The types seen here: `string`, `number`, `bool`, `object`, `array`, `null`.
    var types: Set<String> = []
    /// The fields of the objects seen here, merged.
    var fields: [String: DriftJSONShape] = [:]
    /// The merged shape of the elements of the arrays seen here; `nil` when every array was empty.
    var element: DriftJSONShape? {
      get { elementBox.first }
      set { elementBox = newValue.map { [$0] } ?? [] }
    }
    /// ``element``, in an array: a struct cannot hold itself directly.
    private var elementBox: [DriftJSONShape] = []

    init(_ value: JSONValue) {
      merge(value)
    }

    private init() {}

    private mutating func merge(_ value: JSONValue) {
      types.insert(Self.type(of: value))
      switch value {
      case .object(let members):
        for (key, member) in members { fields[key, default: DriftJSONShape()].merge(member) }
      case .array(let items):
        for item in items {
          if elementBox.isEmpty { elementBox = [DriftJSONShape()] }
          elementBox[0].merge(item)
        }
      default: break
      }
    }

    /// `string`, `number`, `bool`, `object`, `array` or `null`.
    static func type(of value: JSONValue) -> String {
      switch value {
      case .null: "null"
      case .bool: "bool"
      case .number: "number"
      case .string: "string"
      case .array: "array"
      case .object: "object"
      }
    }

    /// How `live` differs from `self`, the recorded shape, at `path` and below, leaving out the
    /// places `ignored` names.
    func differences(
      to live: DriftJSONShape, at path: DriftJSONPath = DriftJSONPath(), ignoring ignored: [DriftJSONPath]
    ) -> [DriftDifference] {
      if ignored.contains(where: { $0.covers(path) }) { return [] }
      var found: [DriftDifference] = []
      let recordedValues = types.subtracting(["null"])
      let liveValues = live.types.subtracting(["null"])
      if !recordedValues.isEmpty && liveValues.isEmpty {
        found.append(.init(.becameNull, at: path, recorded: Self.list(recordedValues), live: "null"))
      } else if recordedValues.isEmpty && !liveValues.isEmpty {
        found.append(.init(.becameValue, at: path, recorded: "null", live: Self.list(liveValues)))
      } else if recordedValues != liveValues {
        found.append(.init(.typeChanged, at: path, recorded: Self.list(recordedValues), live: Self.list(liveValues)))
      }
      if types.contains("object") && live.types.contains("object") {
        for key in Set(fields.keys).union(live.fields.keys).sorted() {
          let place = path.appending(key: key)
          if ignored.contains(where: { $0.covers(place) }) { continue }
          switch (fields[key], live.fields[key]) {
          case (let recorded?, let now?): found += recorded.differences(to: now, at: place, ignoring: ignored)
          case (let recorded?, nil):
            found.append(.init(.fieldRemoved, at: place, recorded: Self.list(recorded.types), live: nil))
          case (nil, let now?): found.append(.init(.fieldAdded, at: place, recorded: nil, live: Self.list(now.types)))
          case (nil, nil): break
          }
        }
      }
      if let recorded = element, let now = live.element {
        found += recorded.differences(to: now, at: path.appendingElement(), ignoring: ignored)
      }
      return found
    }

    /// Where `live` holds another value than `recorded` of the same type (strings, numbers,
    /// bools; arrays element by element), leaving out the places `ignored` names. The values of
    /// keys `redaction` calls secret are shown as `REDACTED`.
    static func valueDifferences(
      from recorded: JSONValue, to live: JSONValue, at path: DriftJSONPath = DriftJSONPath(),
      ignoring ignored: [DriftJSONPath], redaction: Redaction
    ) -> [DriftDifference] {
      if ignored.contains(where: { $0.covers(path) }) { return [] }
      switch (recorded, live) {
      case (.object(let old), .object(let new)):
        return old.keys.sorted().flatMap { key -> [DriftDifference] in
          guard let now = new[key], let was = old[key] else { return [] }
          return valueDifferences(
            from: was, to: now, at: path.appending(key: key), ignoring: ignored, redaction: redaction)
        }
      case (.array(let old), .array(let new)):
        return zip(old, new).enumerated().flatMap { index, pair in
          valueDifferences(
            from: pair.0, to: pair.1, at: path.appendingElement(index), ignoring: ignored, redaction: redaction)
        }
      case (.string, .string), (.number, .number), (.bool, .bool):
        guard recorded != live else { return [] }
        let secret =
          path.keys.last.map { redaction.redacts(jsonKey: $0, keyPath: Array(path.keys.dropLast())) } ?? false
        return [
          DriftDifference(
            .valueChanged, at: path, recorded: secret ? Redaction.marker : recorded.description,
            live: secret ? Redaction.marker : live.description)
        ]
      default:
        return []
      }
    }

    /// `number`, `number or string`.
    private static func list(_ types: Set<String>) -> String { types.sorted().joined(separator: " or ") }
  }

  /// A place in a JSON body, written `$.data[*].name` (`[*]` is every element of an array), or a
  /// field name alone (`updatedAt`) for that field at any depth: what `--ignore` takes and what
  /// the report prints.
  struct DriftJSONPath: Hashable, CustomStringConvertible {
    enum Step: Hashable {
      case key(String)
      /// Every element (in a path given to `--ignore`), or the merged elements (in a report).
      case element
      /// One element, in a report of changed values.
      case index(Int)
    }

    var steps: [Step] = []
    /// `false` for a name alone, which names the field wherever it is.
    var anchored = true

    init() {}

    /// Reads `$`, `$.a.b`, `$.a[*].b`, `$.a[0].b` (an index is taken as every element, since the
    /// elements' shapes are merged), `$["a key"]`, or a field name alone.
    ///
    /// - Throws: ``DriftJSONPath/Invalid`` with what is wrong.
    init(parsing text: String) throws(Invalid) {
      guard text.hasPrefix("$") else {
        guard !text.isEmpty, !text.contains("."), !text.contains("[") else {
          throw Invalid(text: text, reason: "start it with $ (such as $.data[*].updatedAt), or give a field name alone")
        }
        steps = [.key(text)]
        anchored = false
        return
      }
      var rest = Substring(text).dropFirst()
      while let first = rest.first {
        if first == "." {
          rest = rest.dropFirst()
          let name = rest.prefix { $0 != "." && $0 != "[" }
          guard !name.isEmpty else { throw Invalid(text: text, reason: "a field name is missing after a dot") }
          steps.append(.key(String(name)))
          rest = rest.dropFirst(name.count)
        } else if first == "[" {
          guard let close = rest.firstIndex(of: "]") else {
            throw Invalid(text: text, reason: "a [ is not closed")
          }
          let inside = rest[rest.index(after: rest.startIndex)..<close]
          if inside == "*" || (!inside.isEmpty && inside.allSatisfy(\.isASCII) && inside.allSatisfy(\.isNumber)) {
            steps.append(.element)
          } else if inside.count >= 2, inside.first == "\"", inside.last == "\"" {
            steps.append(.key(String(inside.dropFirst().dropLast())))
          } else {
            throw Invalid(text: text, reason: "write [*] for every element, or [\"name\"] for a field")
          }
          rest = rest[rest.index(after: close)...]
        } else {
          throw Invalid(text: text, reason: "expected . or [ after \(text.dropLast(rest.count))")
        }
      }
    }

    /// A path `--ignore` cannot read.
    struct Invalid: Error, CustomStringConvertible {
      let text: String
      let reason: String
      var description: String { "--ignore \(text) is not a JSON path: \(reason)." }
    }

    func appending(key: String) -> DriftJSONPath {
      var path = self
      path.steps.append(.key(key))
      return path
    }

    func appendingElement(_ index: Int? = nil) -> DriftJSONPath {
      var path = self
      path.steps.append(index.map(Step.index) ?? .element)
      return path
    }

    /// The keys from the root to here, for the redaction rules (elements are not keys).
    var keys: [String] {
      steps.compactMap { step in
        if case .key(let key) = step { return key }
        return nil
      }
    }

    /// Whether this path, given to `--ignore`, covers `path`: `path` is this place or under it,
    /// or for a name alone, `path` goes through a field of that name.
    func covers(_ path: DriftJSONPath) -> Bool {
      guard anchored else { return steps.first.map(path.steps.contains) ?? false }
      guard path.steps.count >= steps.count else { return false }
      return zip(steps, path.steps).allSatisfy { pattern, step in
        if case .element = pattern, case .index = step { return true }
        return pattern == step
      }
    }

    var description: String {
      guard anchored else { return keys.first ?? "" }
      var text = "$"
      for step in steps {
        switch step {
        case .element: text += "[*]"
        case .index(let index): text += "[\(index)]"
        case .key(let key):
          let plain = !key.isEmpty && key.allSatisfy { $0.isLetter || $0.isNumber || $0 == "_" || $0 == "-" }
          text += plain ? ".\(key)" : "[\"\(key)\"]"
        }
      }
      return text
    }
  }
#endif
