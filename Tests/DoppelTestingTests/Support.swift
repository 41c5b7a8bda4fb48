@_spi(DoppelInternals) import DoppelToolkit
import Foundation

@testable import DoppelTesting

/// A breed, as the tiny model below loads it.
struct Breed: Codable, Equatable, Sendable {
  let name: String

  static let all = [Breed(name: "Abyssinian"), Breed(name: "Bengal")]
}

/// A screen model of the kind an app has: it loads breeds through the session it is given.
final class BreedListModel {
  enum State: Equatable {
    case idle
    case empty
    case loaded([Breed])
  }

  static let url = URL(string: "https://api.example.com/breeds.json")!

  private let session: URLSession
  private(set) var state = State.idle

  init(session: URLSession) { self.session = session }

  func load() async throws {
    let (data, _) = try await session.data(from: Self.url)
    let breeds = try JSONDecoder().decode([Breed].self, from: data)
    state = breeds.isEmpty ? .empty : .loaded(breeds)
  }
}

extension URLSession {
  /// The body of a `GET` to `url`, as text.
  func text(_ url: String) async throws -> String {
    let (data, _) = try await data(from: URL(string: url)!)
    return String(decoding: data, as: UTF8.self)
  }

  /// The status of a request to `url`, or the `URLError` code it failed with.
  func outcome(_ url: String) async -> String {
    do {
      let (_, response) = try await data(from: URL(string: url)!)
      return "\((response as? HTTPURLResponse)?.statusCode ?? 0)"
    } catch let error as URLError {
      return "URLError \(error.code.rawValue)"
    } catch {
      return "error \(error)"
    }
  }
}

/// Collects the issues a scope reports, instead of failing the test.
final class IssueLog: Sendable {
  private let issues = Locked<[DoppelIssue]>([])

  var record: @Sendable (DoppelIssue) -> Void { { [issues] issue in issues.withLock { $0.append(issue) } } }
  var all: [DoppelIssue] { issues.withLock { $0 } }
  var messages: [String] { all.map(\.message) }
}

extension DoppelTrait {
  /// This trait with nothing attached (unless it chose otherwise): a test that runs a scope inside
  /// itself to check what the scope reports would otherwise get the scope's traffic attached each
  /// time the scope fails on purpose, and a passing run would print `Attached 'doppel-journal.har'`.
  var attachingNothing: DoppelTrait {
    var trait = self
    if trait.attach == nil { trait.attach = .never }
    return trait
  }
}
