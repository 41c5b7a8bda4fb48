import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// Why the breeds could not be loaded.
public enum BreedsError: Error, Equatable, Sendable, CustomStringConvertible {
  /// The request never got an HTTP answer: offline, timed out, host not found…
  /// The reason is a short, human-readable phrase.
  case network(reason: String)
  /// The server answered with a status other than 200.
  case badStatus(Int)
  /// The server answered 200, but the body is not a list of breeds.
  /// The reason is the decoder's explanation.
  case malformed(reason: String)

  /// A one-line explanation, for logs and the command line.
  public var description: String {
    switch self {
    case .network(let reason): "network failure: \(reason)"
    case .badStatus(let status): "the server answered with HTTP status \(status)"
    case .malformed(let reason): "the response is not a list of breeds: \(reason)"
    }
  }

  /// A network failure whose reason is a readable phrase for `error`.
  ///
  /// Common `URLError` codes get a phrase of their own; other errors use their localized
  /// description.
  public static func network(_ error: any Error) -> BreedsError {
    .network(reason: reason(for: error))
  }

  static func reason(for error: any Error) -> String {
    if let error = error as? URLError {
      switch error.code {
      case .notConnectedToInternet: return "the device is offline"
      case .timedOut: return "the request timed out"
      case .cannotFindHost, .dnsLookupFailed: return "the server's name could not be found"
      case .cannotConnectToHost: return "the server could not be reached"
      case .networkConnectionLost: return "the connection was lost"
      case .cancelled: return "the request was cancelled"
      default: break
      }
      if let message = error.userInfo[NSLocalizedDescriptionKey] as? String { return message }
      return "URL error \(error.code.rawValue)"
    }
    return error.localizedDescription
  }
}
