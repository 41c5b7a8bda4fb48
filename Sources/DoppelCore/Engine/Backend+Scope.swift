@_spi(DoppelInternals) import DoppelToolkit
import Foundation

extension Backend {
  /// The backend of the enclosing test scope: the one DoppelTesting's `.doppel` trait made. Kept
  /// in the core so that other modules' test traits can reach it.
  @TaskLocal package static var scoped: Backend?

  /// Set-up that test traits applied outside the `.doppel` trait ask for (DoppelOpenAPI's
  /// `.doppel(openAPI:)` on a suite whose tests declare `.doppel { … }`): the `.doppel` trait runs
  /// each on the backend it makes, before its own configuration.
  @TaskLocal package static var pendingSetUp: [@Sendable (Backend) -> Void] = []
}
