import DoppelCore
@_spi(DoppelInternals) import DoppelToolkit

extension DoppelError.Kind {
  /// A manifest or a fixture directory.
  public static let manifest = DoppelError.Kind("manifest")
  /// The stub server, its admin API, or `DoppelRemote`'s exchange with it.
  public static let server = DoppelError.Kind("server")
}

extension DoppelError {
  /// A manifest or fixture directory problem.
  package static func manifest(_ message: String, at location: CodeLocation? = nil) -> DoppelError {
    DoppelError(message, kind: .manifest, location: location)
  }
  /// A stub server, admin API or `DoppelRemote` problem.
  package static func server(_ message: String) -> DoppelError { DoppelError(message, kind: .server) }
}
