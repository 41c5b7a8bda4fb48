import Dispatch
@_spi(DoppelInternals) import DoppelToolkit
import Foundation

/// What the front door reads from the configuration of the session a request came from.
struct SessionSettings {
  private let configuration: URLSessionConfiguration?

  init(_ configuration: URLSessionConfiguration?) { self.configuration = configuration }

  /// The session's cookie storage, when it sends and stores cookies.
  var cookies: CookieJar? {
    guard let configuration, configuration.httpShouldSetCookies, let storage = configuration.httpCookieStorage
    else { return nil }
    return CookieJar(storage: storage, acceptPolicy: configuration.httpCookieAcceptPolicy)
  }

  /// The timeouts for `request`: its own `timeoutInterval` when it was set (anything but
  /// URLRequest's default of 60 seconds), else the session's `timeoutIntervalForRequest`; and the
  /// session's `timeoutIntervalForResource`. A custom URLProtocol never sees the session's values
  /// on Linux, which is why Doppel keeps the configuration it made.
  func timeouts(for request: URLRequest) -> Playback.Timeouts {
    let requestDefault: TimeInterval = 60
    var idle = request.timeoutInterval
    if idle == requestDefault, let configured = configuration?.timeoutIntervalForRequest { idle = configured }
    let total = configuration?.timeoutIntervalForResource ?? 7 * 24 * 3600
    return Playback.Timeouts(idle: .timeout(idle), total: .timeout(total))
  }
}
