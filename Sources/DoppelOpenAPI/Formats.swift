#if OpenAPI
  import Foundation

  /// The `format`s the checker knows. Unknown formats pass, as JSON Schema asks.
  enum Formats {
    static func string(_ text: String, conformsTo format: String) -> Bool {
      switch format {
      case "date-time": return matches(dateTime, text)
      case "date": return matches(date, text)
      case "time": return matches(time, text)
      case "uuid": return matches(uuid, text)
      case "email": return matches(email, text)
      case "uri", "url":
        guard let url = URL(string: text), let scheme = url.scheme, !scheme.isEmpty else { return false }
        return !text.contains(" ")
      case "ipv4": return matches(ipv4, text)
      case "byte": return Data(base64Encoded: text) != nil
      default: return true
      }
    }

    static func number(_ value: Double, conformsTo format: String) -> Bool {
      switch format {
      case "int32": return value.rounded() == value && value >= Double(Int32.min) && value <= Double(Int32.max)
      case "int64":
        return value.rounded() == value && value >= -9.223_372_036_854_775_808e18
          && value < 9.223_372_036_854_775_808e18
      case "float": return value.isFinite && abs(value) <= Double(Float.greatestFiniteMagnitude)
      default: return true
      }
    }

    private static func matches(_ expression: Pattern, _ text: String) -> Bool { expression.matches(text) }

    private static func make(_ source: String) -> Pattern {
      // The patterns below are constants, tested to compile; no input reaches this `try!`.
      Pattern(source: source, expression: try! NSRegularExpression(pattern: source))
    }

    private static let dateTime = make(
      #"^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])[Tt]([01]\d|2[0-3]):[0-5]\d:([0-5]\d|60)(\.\d+)?([Zz]|[+-]([01]\d|2[0-3]):[0-5]\d)$"#
    )
    private static let date = make(#"^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])$"#)
    private static let time = make(
      #"^([01]\d|2[0-3]):[0-5]\d:([0-5]\d|60)(\.\d+)?([Zz]|[+-]([01]\d|2[0-3]):[0-5]\d)?$"#)
    private static let uuid = make(#"^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$"#)
    private static let email = make(#"^[^@\s]+@[^@\s]+\.[^@\s]+$"#)
    private static let ipv4 = make(#"^((25[0-5]|2[0-4]\d|1?\d?\d)\.){3}(25[0-5]|2[0-4]\d|1?\d?\d)$"#)
  }
#endif
