import DoppelCore
import DoppelRecording
@_spi(DoppelInternals) import DoppelToolkit
import Foundation

extension Manifest {
  /// A stub as `doppel drift` sees it: where it was declared, the request it re-sends, and what
  /// the stub answers to that request. `package`: for the tool only.
  package struct DriftStub: Sendable {
    /// Where the stub was declared.
    package let location: CodeLocation
    /// The scenario the stub belongs to, `nil` for a base stub.
    package let scenario: String?
    /// The stub's `drift`: `true` to re-send it whatever its method, `false` never to.
    package let drift: Bool?
    /// The request to re-send, or why there is none.
    package let resend: ManifestResend
    fileprivate let stub: ManifestStub

    /// What the stub answers to its own request, as the in-memory front door delivers it (a
    /// template filled in, a file read). Waits no longer than `timeout` for a delayed answer.
    ///
    /// - Throws: the stubbed error, or `URLError(.timedOut)` for an answer that never comes.
    package func answer(timeout: TimeInterval) async throws -> (Data, HTTPURLResponse) {
      let backend = Backend(unmatched: .fail, issueReporter: .ignore)
      // Whatever state the stub needs, it is asked on its own.
      var alone = stub
      alone.requiresState = nil
      alone.setsState = nil
      backend.register(alone)
      // A path alone matches on any host: any host will do.
      let written = resend.url.hasPrefix("/") ? "http://localhost" + resend.url : resend.url
      guard let url = URL(string: written) else { throw URLError(.badURL) }
      var request = URLRequest(url: url, timeoutInterval: timeout)
      request.httpMethod = resend.method
      for header in resend.headers { request.addValue(header.value, forHTTPHeaderField: header.name) }
      request.httpBody = resend.body
      return try await backend.respond(to: request)
    }
  }

  /// Every stub of the manifest, base stubs first, then each scenario's in the order written. A
  /// stub of a fixture directory or of a cassette the manifest names comes with the reason it is
  /// not re-sent.
  package var driftStubs: [DriftStub] {
    let layers = [(String?.none, stubs)] + scenarios.map { (Optional($0.name), $0.stubs) }
    return layers.flatMap { scenario, stubs in
      stubs.map { stub in
        var resend = stub.resend ?? ManifestResend()
        if stub.resend == nil {
          resend.unsendable = "it comes from a fixture directory or a cassette; pass a cassette to doppel drift itself"
        }
        return DriftStub(location: stub.location, scenario: scenario, drift: stub.drift, resend: resend, stub: stub)
      }
    }
  }
}
