import Foundation

/// One cat breed, as the breeds endpoint describes it.
///
/// The JSON uses snake_case keys (`known_for`, `photo_url`, `info_url`), mapped explicitly so that a
/// plain `JSONDecoder` or `JSONEncoder` reads and writes the server's shape:
///
/// ```json
/// {
///   "name": "Abyssinian",
///   "known_for": "a ticked coat and boundless curiosity",
///   "popularity": 7,
///   "photo_url": "https://…/abyssinian.jpg",
///   "info_url": "https://en.wikipedia.org/wiki/Abyssinian_cat",
///   "credit": "CatFancy sample photo",
///   "license": "CC BY-SA 4.0",
///   "description": "…"
/// }
/// ```
public struct Breed: Codable, Equatable, Sendable {
  /// The breed's name, for example "Abyssinian".
  public var name: String
  /// What the breed is known for, as a phrase that reads after "known for".
  public var knownFor: String
  /// How often the breed is seen, from 1 (rare) to 10 (everywhere).
  public var popularity: Int
  /// Where a photo of the breed is.
  public var photoURL: URL
  /// Where to read more about the breed.
  public var infoURL: URL
  /// Who took the photo.
  public var credit: String
  /// The license the photo is published under.
  public var license: String
  /// A paragraph about the breed.
  public var description: String

  /// Creates a breed from its fields.
  public init(
    name: String, knownFor: String, popularity: Int, photoURL: URL, infoURL: URL,
    credit: String, license: String, description: String
  ) {
    self.name = name
    self.knownFor = knownFor
    self.popularity = popularity
    self.photoURL = photoURL
    self.infoURL = infoURL
    self.credit = credit
    self.license = license
    self.description = description
  }

  /// The JSON keys, in the server's snake_case.
  enum CodingKeys: String, CodingKey {
    case name
    case knownFor = "known_for"
    case popularity
    case photoURL = "photo_url"
    case infoURL = "info_url"
    case credit
    case license
    case description
  }
}

/// The body of the breeds endpoint: an object whose `breeds` member lists the breeds.
///
/// ```json
/// { "breeds": [ { "name": "Abyssinian", … }, … ] }
/// ```
///
/// An empty list (`{ "breeds": [] }`) is a valid answer: there is nothing to show.
public struct Breeds: Codable, Equatable, Sendable {
  /// The breeds, in the order the server sent them.
  public var breeds: [Breed]

  /// Creates a body listing `breeds`.
  public init(breeds: [Breed]) {
    self.breeds = breeds
  }
}
