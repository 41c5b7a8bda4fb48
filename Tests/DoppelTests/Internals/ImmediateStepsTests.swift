import Foundation
import Testing

@testable import Doppel
@testable import DoppelCore
@testable import DoppelManifest
@testable import DoppelRecording
@_spi(DoppelInternals) @testable import DoppelToolkit

/// The URLSession door hands an immediate answer's steps over without building beats; they must be
/// the steps the beats would give.
@Suite("Immediate steps")
struct ImmediateStepsTests {
  static func shape(_ steps: [Playback.Step]) -> [String] {
    steps.map { step in
      switch step {
      case .head(let answer): "head \(answer.status)"
      case .data(let data): "data \(data.count)"
      case .finish: "finish"
      case .fail(let error): "fail \((error as? URLError)?.code.rawValue ?? 0)"
      }
    }
  }

  @Test(
    "immediate steps are the beats' steps",
    arguments: [Response.text("hello"), .status(204), .error(.notConnectedToInternet), .data(Data())])
  func sameAsBeats(_ response: Response) {
    let request = Request(url: URL(string: "https://api.example.com/a")!)
    let playback = Playback(delivery: Delivery.make(response, for: request), timing: response.timing)
    #expect(playback.timing.isImmediate)
    #expect(Self.shape(playback.immediateSteps) == Self.shape(playback.beats(streaming: false).flatMap(\.steps)))
  }
}
