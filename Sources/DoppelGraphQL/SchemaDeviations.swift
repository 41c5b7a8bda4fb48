#if GraphQL
  import Foundation
  import GraphQL

  /// What published schemas get wrong that a server still serves: a type, a field, an argument
  /// or an enum value defined twice (GraphQL allows one definition of each). The later
  /// definition is left out (its text blanked, so that every line and column stays where it
  /// was), with a warning at its line.
  struct SchemaDeviations {
    /// The SDL with the later definitions blanked.
    var sdl: String
    /// One warning per definition left out, in the order of the text.
    var warnings: [(line: Int, column: Int, message: String)] = []

    init(sdl: String, document: Document) {
      var bytes = Array(sdl.utf8)
      var warnings: [(start: Int, line: Int, column: Int, message: String)] = []
      /// Where the list an item starts in closes: the `}` or `)` at its depth (GraphQL's nodes
      /// know where they start, not where they end).
      func closing(from token: Token) -> Int {
        var depth = 0
        var current: Token? = token
        while let here = current, here.kind != .eof {
          switch here.kind {
          case .openingBrace, .openingParenthesis, .openingBracket: depth += 1
          case .closingBrace, .closingParenthesis, .closingBracket:
            if depth == 0 { return here.start }
            depth -= 1
          default: break
          }
          current = here.next
        }
        return bytes.count
      }
      func leaveOut(_ location: Location?, until end: Int?, name: Name, first: Name, what: String) {
        guard let location else { return }
        let end = min(end ?? closing(from: location.startToken), bytes.count)
        guard location.start >= 0, location.start <= end else { return }
        for index in location.start..<end where bytes[index] != 0x0A && bytes[index] != 0x0D {
          bytes[index] = 0x20
        }
        let line = name.loc?.startToken.line ?? location.startToken.line
        let column = name.loc?.startToken.column ?? location.startToken.column
        let firstLine = first.loc.map { " (first at line \($0.startToken.line))" } ?? ""
        warnings.append(
          (
            location.start, line, column,
            "the GraphQL schema defines \(what) twice\(firstLine); this definition is left out. GraphQL allows one definition of each: remove one, or rename it."
          ))
      }
      /// Leaves out the later of the items named alike.
      func unique<Item>(_ items: [Item], name: (Item) -> Name, location: (Item) -> Location?, what: (String) -> String)
      {
        var seen: [String: Name] = [:]
        for (index, item) in items.enumerated() {
          let itemName = name(item)
          if let first = seen[itemName.value] {
            // It ends where the next item starts, or where the list closes.
            let next = index + 1 < items.count ? location(items[index + 1])?.start : nil
            leaveOut(location(item), until: next, name: itemName, first: first, what: what(itemName.value))
          } else {
            seen[itemName.value] = itemName
          }
        }
      }
      func arguments(of fields: [FieldDefinition], in type: String) {
        for field in fields {
          unique(
            field.arguments, name: \.name, location: \.loc,
            what: { "the argument \(type).\(field.name.value)(\($0):)" })
        }
      }
      var types: [String: Name] = [:]
      for (index, definition) in document.definitions.enumerated() {
        guard let type = definition as? TypeDefinition else { continue }
        let name = type.name.value
        if let first = types[name] {
          let next = index + 1 < document.definitions.count ? document.definitions[index + 1].loc?.start : nil
          leaveOut(type.loc, until: next ?? bytes.count, name: type.name, first: first, what: "the type \(name)")
          continue
        }
        types[name] = type.name
        switch type {
        case let object as ObjectTypeDefinition:
          unique(object.fields, name: \.name, location: \.loc, what: { "the field \(name).\($0)" })
          arguments(of: object.fields, in: name)
        case let interface as InterfaceTypeDefinition:
          unique(interface.fields, name: \.name, location: \.loc, what: { "the field \(name).\($0)" })
          arguments(of: interface.fields, in: name)
        case let input as InputObjectTypeDefinition:
          unique(input.fields, name: \.name, location: \.loc, what: { "the input field \(name).\($0)" })
        case let enumeration as EnumTypeDefinition:
          unique(enumeration.values, name: \.name, location: \.loc, what: { "the enum value \(name).\($0)" })
        default:
          break
        }
      }
      self.sdl = warnings.isEmpty ? sdl : String(decoding: bytes, as: UTF8.self)
      self.warnings = warnings.sorted { $0.start < $1.start }.map { ($0.line, $0.column, $0.message) }
    }

    /// The line and column of the definition a message names in quotes (`"User.name"`, `"User"`,
    /// `"@cached"`), for GraphQL's errors that come without a position.
    static func place(named message: String, in document: Document) -> (line: Int, column: Int)? {
      var places: [String: (line: Int, column: Int)] = [:]
      func add(_ key: String, _ name: Name) {
        if places[key] == nil, let token = name.loc?.startToken { places[key] = (token.line, token.column) }
      }
      for definition in document.definitions {
        if let directive = definition as? DirectiveDefinition { add("@" + directive.name.value, directive.name) }
        switch definition {
        case let extended as TypeExtensionDefinition: add(extended.definition.name.value, extended.definition.name)
        case let extended as InterfaceExtensionDefinition:
          add(extended.definition.name.value, extended.definition.name)
        case let extended as UnionExtensionDefinition: add(extended.definition.name.value, extended.definition.name)
        case let extended as EnumExtensionDefinition: add(extended.definition.name.value, extended.definition.name)
        case let extended as InputObjectExtensionDefinition:
          add(extended.definition.name.value, extended.definition.name)
        case let extended as ScalarExtensionDefinition: add(extended.definition.name.value, extended.definition.name)
        default: break
        }
        guard let type = definition as? TypeDefinition else { continue }
        let name = type.name.value
        add(name, type.name)
        switch type {
        case let object as ObjectTypeDefinition:
          for field in object.fields { add("\(name).\(field.name.value)", field.name) }
        case let interface as InterfaceTypeDefinition:
          for field in interface.fields { add("\(name).\(field.name.value)", field.name) }
        case let input as InputObjectTypeDefinition:
          for field in input.fields { add("\(name).\(field.name.value)", field.name) }
        case let enumeration as EnumTypeDefinition:
          for value in enumeration.values { add("\(name).\(value.name.value)", value.name) }
        default: break
        }
      }
      let quoted = message.split(separator: "\"", omittingEmptySubsequences: false).enumerated()
        .filter { $0.offset % 2 == 1 }.map { String($0.element) }
      // Some messages quote nothing (`The type of Query.a must be Output Type`): their words.
      let words = message.split { !($0.isLetter || $0.isNumber || $0 == "_" || $0 == "." || $0 == "@") }
        .map { String($0).trimmingCharacters(in: CharacterSet(charactersIn: ".")) }
      // The most specific name first: a field before its type.
      for name in (quoted.isEmpty ? words : quoted).sorted(by: { $0.contains(".") && !$1.contains(".") }) {
        if let place = places[name] { return place }
      }
      return nil
    }
  }
#endif
