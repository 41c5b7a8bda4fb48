@_spi(DoppelInternals) import DoppelToolkit
import Foundation

/// An HTTP request method such as `GET` or `POST`.
///
/// Methods are compared by their upper-cased name, so `HTTPMethod("get") == .get`.
public struct HTTPMethod: RawRepresentable, Hashable, Sendable, ExpressibleByStringLiteral,
  CustomStringConvertible
{
  /// The upper-cased method name, for example `"GET"`.
  public let rawValue: String

  /// Creates a method from its name; the name is upper-cased.
  public init(rawValue: String) { self.rawValue = rawValue.uppercased() }

  /// The method a `URLRequest` names (`GET` when it names none), reusing the common ones instead of
  /// upper-casing the name again for every request.
  static func parsing(_ name: String?) -> HTTPMethod {
    switch name {
    case nil, "GET": .get
    case "POST": .post
    case "PUT": .put
    case "PATCH": .patch
    case "DELETE": .delete
    case "HEAD": .head
    case let name?: HTTPMethod(rawValue: name)
    }
  }

  /// Creates a method from its name; the name is upper-cased.
  public init(_ name: String) { self.init(rawValue: name) }

  /// Creates a method from a string literal such as `"PROPFIND"`.
  public init(stringLiteral value: String) { self.init(rawValue: value) }

  /// The method name.
  public var description: String { rawValue }

  /// `GET`
  public static let get = HTTPMethod(rawValue: "GET")
  /// `POST`
  public static let post = HTTPMethod(rawValue: "POST")
  /// `PUT`
  public static let put = HTTPMethod(rawValue: "PUT")
  /// `PATCH`
  public static let patch = HTTPMethod(rawValue: "PATCH")
  /// `DELETE`
  public static let delete = HTTPMethod(rawValue: "DELETE")
  /// `HEAD`
  public static let head = HTTPMethod(rawValue: "HEAD")
  /// `OPTIONS`
  public static let options = HTTPMethod(rawValue: "OPTIONS")
}
