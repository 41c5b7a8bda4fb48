import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// A value behind a lock, shareable across tasks and threads.
final class Guarded<Value: Sendable>: @unchecked Sendable {
  // Why `@unchecked` is safe: `value` is private and only read or written inside `withLock`,
  // which holds `lock` for the whole access, so no two threads ever touch it at once.
  private var value: Value
  private let lock = NSLock()

  init(_ value: Value) { self.value = value }

  @inline(__always)
  func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
    lock.lock()
    defer { lock.unlock() }
    return try body(&value)
  }
}

/// A canned answer: body bytes and a prebuilt response.
typealias CannedAnswer = (data: Data, response: HTTPURLResponse)

/// The table floor 1 answers from, keyed by absolute URL string. A global `let`: `URLProtocol`
/// instances are created by URLSession, so the class can only find its table through a global.
let floorTable = Guarded<[String: CannedAnswer]>([:])

/// Floor 1, "minimal URLProtocol": the least a URLProtocol-based stub can do. It looks the URL
/// up in `floorTable` and plays the answer back synchronously inside `startLoading`.
final class FloorURLProtocol: URLProtocol {
  override class func canInit(with request: URLRequest) -> Bool { true }

  override class func canonicalRequest(for request: URLRequest) -> URLRequest { request }

  override func startLoading() {
    guard let client else { return }
    let key = request.url?.absoluteString ?? ""
    guard let answer = floorTable.withLock({ $0[key] }) else {
      client.urlProtocol(self, didFailWithError: URLError(.fileDoesNotExist))
      return
    }
    client.urlProtocol(self, didReceive: answer.response, cacheStoragePolicy: .notAllowed)
    client.urlProtocol(self, didLoad: answer.data)
    client.urlProtocolDidFinishLoading(self)
  }

  override func stopLoading() {}

  /// Fills the table with `workload`'s answers, replacing what was there.
  static func install(_ workload: Workload) {
    var table: [String: CannedAnswer] = [:]
    table.reserveCapacity(workload.stubCount)
    for url in workload.urls { table[url] = (workload.body, workload.floorResponse(for: url)) }
    floorTable.withLock { $0 = table }
  }

  /// An ephemeral session answered only by this class.
  static func makeSession() -> URLSession {
    let configuration = URLSessionConfiguration.ephemeral
    configuration.protocolClasses = [FloorURLProtocol.self]
    return URLSession(configuration: configuration)
  }
}

/// Floor 2, "in-memory closure": a prebuilt answer from a dictionary, behind the same async
/// throwing signature as `Backend.respond(to:)`.
typealias InMemoryDoor = @Sendable (URLRequest) async throws -> (Data, HTTPURLResponse)

/// Makes floor 2 for `workload`.
func makeClosureFloor(_ workload: Workload) -> InMemoryDoor {
  var table: [String: CannedAnswer] = [:]
  table.reserveCapacity(workload.stubCount)
  for url in workload.urls { table[url] = (workload.body, workload.floorResponse(for: url)) }
  let answers = table
  return { request in
    guard let answer = answers[request.url?.absoluteString ?? ""] else {
      throw URLError(.fileDoesNotExist)
    }
    return (answer.data, answer.response)
  }
}

/// What a door that keeps a journal must record of each request, and nothing else: its method,
/// URL, header fields and body, as `URLRequest` gives them (a body sent as a stream is only
/// noticed: reading it is work Doppel's side does not do here either, its requests have none).
private final class JournalRecord: Sendable {
  let method: String?
  let url: URL?
  let headers: [String: String]?
  let body: Data?
  let streamed: Bool

  init(_ request: URLRequest) {
    method = request.httpMethod
    url = request.url
    headers = request.allHTTPHeaderFields
    body = request.httpBody
    streamed = body == nil && request.httpBodyStream != nil
  }
}

/// A reference for the in-memory door, without a goal: floor 2 plus the least a journal costs. It
/// reads the fields a journal keeps and appends them, as one object, to an array behind a lock,
/// before the same dictionary lookup. `reset` empties the journal, as Doppel's side clears its own.
func makeJournalingClosureFloor(_ workload: Workload) -> (door: InMemoryDoor, reset: @Sendable () -> Void) {
  let answers = makeClosureFloor(workload)
  let journal = Guarded<[JournalRecord]>([])
  let door: InMemoryDoor = { request in
    let record = JournalRecord(request)
    journal.withLock { $0.append(record) }
    return try await answers(request)
  }
  return (door, { journal.withLock { $0 = [] } })
}
