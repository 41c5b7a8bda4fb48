@_spi(DoppelInternals) import DoppelToolkit
import Foundation

/// Something a backend wants a person to see: an invalid stub, an unmatched request.
public struct DoppelIssue: Sendable, CustomStringConvertible {
  /// The message.
  public let message: String
  /// Where the cause was declared, when known (for example the invalid stub's line).
  public let location: CodeLocation?
  /// Whether the issue is a request no stub matched (its location is then the closest stub's).
  package let isUnmatchedRequest: Bool

  /// Creates an issue.
  public init(_ message: String, location: CodeLocation? = nil) {
    self.init(message, location: location, isUnmatchedRequest: false)
  }

  package init(_ message: String, location: CodeLocation?, isUnmatchedRequest: Bool) {
    self.message = message
    self.location = location
    self.isUnmatchedRequest = isUnmatchedRequest
  }

  /// The same issue with another message.
  package func with(message: String) -> DoppelIssue {
    DoppelIssue(message, location: location, isUnmatchedRequest: isUnmatchedRequest)
  }

  /// The same issue pointing at `location`.
  package func with(location: CodeLocation?) -> DoppelIssue {
    DoppelIssue(message, location: location, isUnmatchedRequest: isUnmatchedRequest)
  }

  /// The `URLError.userInfo` key under which the error of an unmatched request carries its
  /// near-miss report, so that test helpers recognise an error they have already reported.
  static let unmatchedReportKey = "DoppelUnmatchedRequestReport"

  /// The near-miss report an unmatched request's `URLError` carries, if `error` is one.
  package static func unmatchedReport(in error: any Error) -> String? {
    (error as? URLError)?.userInfo[unmatchedReportKey] as? String
  }

  /// The message, prefixed with the location when there is one.
  public var description: String { location.map { "\($0): \(message)" } ?? message }
}
