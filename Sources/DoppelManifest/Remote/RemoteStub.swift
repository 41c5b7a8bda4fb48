import DoppelCore
import DoppelRecording
@_spi(DoppelInternals) import DoppelToolkit
import Foundation

/// A stub on a running stub server, as ``DoppelRemote`` sees it.
public struct RemoteStub: Sendable, Hashable, CustomStringConvertible {
  /// The server's number for the stub (it numbers stubs again when it reloads its files).
  public let id: Int
  /// The stub's request pattern, as the server describes it: `GET https://api.example.com/me`.
  public let request: String
  /// The stub's name, if it has one.
  public let name: String?
  /// Where the stub was declared: `doppel.json:5`, or the test file and line for one added with
  /// `DoppelRemote.stub(_:_:)`.
  public let location: String
  /// Whether it was added through the admin API (`false` for the files' stubs).
  public let isAddedAtRunTime: Bool
  /// How many requests it had answered when it was read.
  public let callCount: Int

  init(_ json: JSONValue) throws {
    guard let id = json["id"]?.intValue else {
      throw DoppelError.server(
        "The stub server's description of a stub has no \"id\": is the server a Doppel of this version?")
    }
    self.id = id
    request = json["request"]?.stringValue ?? ""
    name = json["name"]?.stringValue
    location = json["location"]?.stringValue ?? ""
    isAddedAtRunTime = json["source"]?.stringValue == "admin"
    callCount = json["callCount"]?.intValue ?? 0
  }

  /// `#7 GET https://api.example.com/me (LoginUITests.swift:42)`.
  public var description: String { "#\(id) \(request) (\(location))" }
}

/// A request a running stub server saw, as ``DoppelRemote/journal(since:)`` reads it.
public struct RemoteJournalEntry: Sendable, CustomStringConvertible {
  /// The entry's number in the server's journal.
  public let index: Int
  /// The request: method, URL (as matched), headers and body.
  public let request: Request
  /// Where the stub that answered was declared (`doppel.json:5`), or `nil` when none matched.
  public let stubLocation: String?
  /// The status answered, or `nil` when the request failed or is still being answered.
  public let status: Int?
  /// For a request no stub matched: the near-miss report.
  public let nearMissReport: String?
  /// The request's body when the server journaled only its length and digest (``request`` then
  /// has no body): it was larger than the server's `--journal-body-kib`.
  public let omittedBody: JournalEntry.OmittedBody?

  init(_ json: JSONValue) throws {
    guard let index = json["index"]?.intValue, let urlText = json["url"]?.stringValue, let url = URL(string: urlText)
    else {
      throw DoppelError.server(
        "The stub server's journal entry has no index or URL: is the server a Doppel of this version?")
    }
    self.index = index
    var headers = HTTPHeaders()
    for field in json["headers"]?.arrayValue ?? [] {
      if let name = field["name"]?.stringValue, let value = field["value"]?.stringValue { headers.add(name, value) }
    }
    var body: Data?
    if let text = json["body"]?["text"]?.stringValue {
      body = Data(text.utf8)
    } else if let base64 = json["body"]?["base64"]?.stringValue {
      body = Data(base64Encoded: base64)
    }
    request = Request(
      method: HTTPMethod(json["method"]?.stringValue ?? "GET"), url: url, headers: headers, body: body)
    stubLocation = json["stub"]?["location"]?.stringValue
    status = json["status"]?.intValue
    nearMissReport = json["nearMiss"]?.stringValue
    if let length = json["body"]?["length"]?.intValue, let digest = json["body"]?["sha256"]?.stringValue {
      omittedBody = JournalEntry.OmittedBody(length: length, sha256: digest)
    } else {
      omittedBody = nil
    }
  }

  /// `GET https://api.example.com/me → 401 (doppel.json:3)`.
  public var description: String {
    "\(request) → \(status.map(String.init) ?? "no status")" + (stubLocation.map { " (\($0))" } ?? " (no stub matched)")
  }
}
