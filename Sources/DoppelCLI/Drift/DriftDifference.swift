#if Server
  import Foundation

  /// One way a live answer differs from the recorded one (or from what a stub answers), for
  /// `doppel drift`.
  struct DriftDifference: Equatable {
    /// What differs. The raw values are the `kind` of the `--json` report.
    enum Kind: String {
      case status, contentType, header, fieldAdded, fieldRemoved, typeChanged, becameNull, becameValue
      case valueChanged, body, openAPI
    }

    let kind: Kind
    /// The JSON path (`$.data[*].name`) or header name the difference is at, if any.
    let path: String?
    /// What the recording has here (a status, a media type, a header value, JSON types or a value).
    let recorded: String?
    /// What the live answer has here.
    let live: String?

    init(_ kind: Kind, path: String? = nil, recorded: String?, live: String?) {
      self.kind = kind
      self.path = path
      self.recorded = recorded
      self.live = live
    }

    init(_ kind: Kind, at path: DriftJSONPath, recorded: String?, live: String?) {
      self.init(kind, path: path.description, recorded: recorded, live: live)
    }

    /// The line printed under the entry, such as `$.data[*].age: type changed from number to string`.
    var message: String {
      let was = recorded ?? "none"
      let now = live ?? "none"
      let place = path ?? ""
      switch kind {
      case .status: return "status: recorded \(was), live \(now)"
      case .contentType: return "Content-Type: recorded \(was), live \(now)"
      case .header: return "header \(place): recorded \(Self.quoted(recorded)), live \(Self.quoted(live))"
      case .fieldAdded: return "\(place): field added (\(now))"
      case .fieldRemoved: return "\(place): field removed (was \(was))"
      case .typeChanged: return "\(place): type changed from \(was) to \(now)"
      case .becameNull: return "\(place): null where the recording has \(was)"
      case .becameValue: return "\(place): \(now) where the recording has null"
      case .valueChanged: return "\(place): value changed from \(was) to \(now)"
      case .body: return "body: recorded \(was), live \(now)"
      case .openAPI: return "OpenAPI: \(now)"
      }
    }

    private static func quoted(_ value: String?) -> String { value.map { "\"\($0)\"" } ?? "none" }
  }
#endif
