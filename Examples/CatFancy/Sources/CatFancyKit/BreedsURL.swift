import Foundation

/// The variants of the breeds endpoint the CatFancy article serves: the usual list, an empty one,
/// a broken one, and a longer one.
///
/// The raw value is the variant's name on the command line (`catfancy --scenario withMore`).
public enum BreedsURL: String, CaseIterable, Sendable {
  /// The usual list of 14 breeds.
  case standard
  /// An empty list.
  case empty
  /// A body that is not valid JSON.
  case malformed
  /// A list of 19 breeds: the usual 14 and 5 more.
  case withMore

  /// The folder all variants are served from.
  ///
  /// - Precondition: the literal is a valid absolute URL; it is a constant, so this holds.
  public static let base: URL = {
    guard let url = URL(string: "https://raceconditionsoftware.s3.us-west-1.amazonaws.com/CatFancy/") else {
      preconditionFailure("The CatFancy base URL literal is not a valid URL.")
    }
    return url
  }()

  /// The name of the variant's file on the server, and of its bundled fixture, without extension.
  public var fileName: String {
    switch self {
    case .standard: "breeds"
    case .empty: "breeds_empty"
    case .malformed: "breeds_malformed"
    case .withMore: "breeds_with_more"
    }
  }

  /// The variant's URL, for example `https://…/CatFancy/breeds_empty.json`.
  public var url: URL {
    Self.base.appendingPathComponent(fileName).appendingPathExtension("json")
  }
}
