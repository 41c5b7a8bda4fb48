import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// A breed, as the app shows it.
public struct Breed: Codable, Equatable, Sendable {
  public let name: String

  public init(name: String) { self.name = name }
}

/// The screen model of the consumer package CI builds from the README: it loads breeds through
/// the session it is given.
@MainActor
public final class BreedListModel {
  public enum State: Equatable {
    case idle
    case empty
    case loaded([Breed])
  }

  public nonisolated static let url = URL(string: "https://api.example.com/breeds.json")!

  private let session: URLSession
  public private(set) var state = State.idle

  public init(session: URLSession) { self.session = session }

  public func load() async throws {
    let (data, _) = try await session.data(from: Self.url)
    let breeds = try JSONDecoder().decode([Breed].self, from: data)
    state = breeds.isEmpty ? .empty : .loaded(breeds)
  }
}
