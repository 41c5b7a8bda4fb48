import DoppelCore
@_spi(DoppelInternals) import DoppelToolkit

extension DoppelError.Kind {
  /// A HAR cassette, or recording one.
  public static let cassette = DoppelError.Kind("cassette")
}

extension DoppelError {
  /// A cassette problem.
  package static func cassette(_ message: String, at location: CodeLocation? = nil) -> DoppelError {
    DoppelError(message, kind: .cassette, location: location)
  }
}
