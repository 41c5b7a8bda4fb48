import Doppel
import DoppelOpenAPI
import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// Where each input is written: `OpenAPIDocument` reads files, and a document's `$ref`s name
/// files beside it (`common.yaml`, which the seed corpus's cattery document refers to, is there).
private let directory: URL = {
  let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
    "doppel-fuzz-openapi-\(ProcessInfo.processInfo.processIdentifier)")
  try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
  let common = """
    Problem:
      type: object
      required: [title]
      properties:
        title: {type: string}
        status: {type: integer, minimum: 100, maximum: 599}
    """
  try? Data(common.utf8).write(to: directory.appendingPathComponent("common.yaml"))
  return directory
}()

/// Requests checked against every document that compiles, with the input itself as their body.
private let urls = [
  "https://api.cattery.test/v1/breeds", "https://api.cattery.test/v1/pets/7", "http://x/", "http://x/a",
  "http://x/breeds",
]

/// What one input hands to the task that serves it, and the task's signal that it is done. The
/// task's closure captures nothing, and the task takes the input out of here and drops everything it
/// made before it signals: so nothing an input made is still being released, on the task's thread,
/// while libFuzzer checks that input for leaks. (When the closure captured the backend, its answers
/// were sometimes released after the check began, and reported as leaked.)
private final class Handover: @unchecked Sendable {
  // Why `@unchecked` is safe: `input` is only read and written under `lock`.
  private let lock = NSLock()
  private var input: (data: Data, document: OpenAPIDocument)?
  let done = DispatchSemaphore(value: 0)

  func put(_ data: Data, _ document: OpenAPIDocument) {
    lock.lock()
    input = (data, document)
    lock.unlock()
  }

  func take() -> (data: Data, document: OpenAPIDocument)? {
    lock.lock()
    defer { lock.unlock() }
    let taken = input
    input = nil
    return taken
  }
}

private let handover = Handover()

/// One input: an OpenAPI document's bytes (YAML, or JSON when it starts with `{`). Reading and
/// compiling it may throw (a clear error); serving stubs from it and checking requests and
/// responses against it must not crash.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOpenAPI(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
  let data = start.map { Data(bytes: $0, count: count) } ?? Data()
  let file = directory.appendingPathComponent(data.first == UInt8(ascii: "{") ? "fuzz.json" : "fuzz.yaml")
  guard (try? data.write(to: file)) != nil, let document = try? OpenAPIDocument(contentsOf: file) else { return 0 }
  handover.put(data, document)
  Task {
    await serveTheInput()
    handover.done.signal()
  }
  handover.done.wait()
  return 0
}

/// Serves the handed-over document's stubs and checks requests and responses against it; everything
/// it makes is released when it returns.
private func serveTheInput() async {
  guard let (data, document) = handover.take() else { return }
  let backend = Backend(issueReporter: .ignore)
  _ = try? backend.addStubs(from: document)
  for url in urls {
    for method in [HTTPMethod.get, .post] {
      var request = URLRequest(url: URL(string: url)!)
      request.httpMethod = method.rawValue
      if method == .post { request.httpBody = data }
      if let (body, response) = try? await backend.respond(to: request) {
        var headers = HTTPHeaders()
        for (name, value) in response.allHeaderFields { headers.add("\(name)", "\(value)") }
        _ = document.violations(
          in: Request(request), status: response.statusCode, headers: headers, body: body)
      }
      _ = document.violations(
        in: Request(request), status: 200, headers: ["Content-Type": "application/json"], body: data)
    }
  }
}
