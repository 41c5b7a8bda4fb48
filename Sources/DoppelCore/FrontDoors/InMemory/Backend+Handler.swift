@_spi(DoppelInternals) import DoppelToolkit
import Foundation

extension Backend {
  /// A function answered in memory by this backend, for code that takes a closure instead of a
  /// session. It is ``respond(to:)``: the same stubs, journal and diagnostics as the sessions.
  ///
  /// ```swift
  /// let client = BreedClient(load: backend.handler)
  /// ```
  ///
  /// Code that takes a protocol of its own gets a small adapter over ``respond(to:)`` in the test
  /// target (see <doc:FixturesAndScenarios#Two-ways-to-inject-a-backend>).
  public var handler: @Sendable (URLRequest) async throws -> (Data, HTTPURLResponse) {
    { [self] request in try await respond(to: request) }
  }
}
