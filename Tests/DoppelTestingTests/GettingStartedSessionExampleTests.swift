import Doppel
import DoppelTesting
import Foundation
import Testing

// The code blocks of "Code that uses URLSession.shared" and "Clients that make their own sessions"
// in GettingStarted.md, exactly as written there, so that they compile and pass (the generated
// snippets compile the article's blocks, but do not run them). `ExampleCopyTests` in
// DocumentationTests fails when a block here no longer matches the article.

@Test func loadsBreedsThroughTheSharedSession() async throws {
  try await Backend.withProcessWideBackend { backend in
    backend.stub(.get("https://api.example.com/breeds.json"), .text(#"{"breeds":[]}"#))
    let (data, _) = try await URLSession.shared.data(from: URL(string: "https://api.example.com/breeds.json")!)
    #expect(String(decoding: data, as: UTF8.self) == #"{"breeds":[]}"#)
  }
}

/// Stands in for the SDK: it makes its own session from the configuration it is given.
final class WeatherClient {
  private let session: URLSession
  init(configuration: URLSessionConfiguration = .default) {
    session = URLSession(configuration: configuration)
  }
  func forecast() async throws -> Data {
    try await session.data(from: URL(string: "https://weather.example.com/forecast")!).0
  }
}

@Test(.doppel) func showsTheForecast() async throws {
  let backend = Backend.current  // the trait's backend: an unmatched request fails this test
  backend.stub(.get("https://weather.example.com/forecast"), .text("sunny"))

  let configuration = URLSessionConfiguration.default
  configuration.httpAdditionalHeaders = ["X-API-Key": "test"]  // what the app sets up
  let client = WeatherClient(configuration: backend.configuration(basedOn: configuration))

  let forecast = try await client.forecast()
  #expect(String(decoding: forecast, as: UTF8.self) == "sunny")
  #expect(backend.requests.count == 1)
}
