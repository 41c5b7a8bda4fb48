import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// A breed, as the app shows it.
public struct Breed: Codable, Equatable, Sendable {
  /// The breed's name.
  public let name: String

  /// A breed named `name`.
  public init(name: String) { self.name = name }
}

/// The screen model of the consumer package CI builds from the README: it loads breeds through
/// the session it is given.
@MainActor
public final class BreedListModel {
  /// What the screen shows.
  public enum State: Equatable {
    /// Nothing loaded yet.
    case idle
    /// The backend has no breeds.
    case empty
    /// The breeds to list.
    case loaded([Breed])
  }

  /// Where the breeds come from.
  public nonisolated static let url = URL(string: "https://api.example.com/breeds.json")!

  private let session: URLSession
  /// What the screen shows now.
  public private(set) var state = State.idle

  /// A model that loads through `session`.
  public init(session: URLSession) { self.session = session }

  /// Loads the breeds.
  public func load() async throws {
    let (data, _) = try await session.data(from: Self.url)
    let breeds = try JSONDecoder().decode([Breed].self, from: data)
    state = breeds.isEmpty ? .empty : .loaded(breeds)
  }
}
