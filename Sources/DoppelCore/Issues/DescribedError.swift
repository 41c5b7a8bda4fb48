@_spi(DoppelInternals) import DoppelToolkit
import Foundation

extension URLError {
  /// A `URLError` that Doppel makes, whose `localizedDescription` is `message` and which prints as
  /// `message` wherever it is printed or interpolated (a plain `URLError` prints on Linux as
  /// `Error Domain=NSURLErrorDomain Code=… "(null)" UserInfo={…}`, the message somewhere inside).
  /// `url`, when there is one, is the failing URL. A cast to `NSError` on Linux makes a new plain
  /// `NSError`, which prints as the dump again: print the error itself.
  static package func described(
    _ code: Code, _ message: String, url: URL?, userInfo extra: [String: Any] = [:]
  ) -> URLError {
    var userInfo = extra
    userInfo[NSLocalizedDescriptionKey] = message
    if let url { userInfo[NSURLErrorFailingURLErrorKey] = url }
    return URLError(_nsError: DescribedError(domain: NSURLErrorDomain, code: code.rawValue, userInfo: userInfo))
  }
}

/// An `NSURLErrorDomain` error that prints as its message, so that a test which rethrows it (and a
/// framework that prints what a test threw) shows what went wrong, not a dump of the error's fields.
// @unchecked: NSError is immutable once made; this subclass adds no stored state.
final class DescribedError: NSError, @unchecked Sendable {
  override var description: String { localizedDescription }
}
