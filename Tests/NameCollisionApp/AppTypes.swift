/// An app's own networking types, named as apps and server frameworks often name them: the test
/// beside this module imports Doppel, NIOHTTP1 and swift-http-types as well.
public struct Request: Sendable, Equatable {
  /// The path the app asks for.
  public var path: String

  /// An app request for `path`.
  public init(path: String) { self.path = path }
}

/// The app's own response type.
public struct Response: Sendable, Equatable {
  /// The status the app saw.
  public var status: Int

  /// An app response with `status`.
  public init(status: Int) { self.status = status }
}

/// The app's own method type.
public enum HTTPMethod: String, Sendable {
  case get = "GET"
  case post = "POST"
}
