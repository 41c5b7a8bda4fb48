import Foundation
import Testing

@testable import Doppel
@testable import DoppelCore
@testable import DoppelManifest
@testable import DoppelRecording
@_spi(DoppelInternals) @testable import DoppelToolkit

/// The random delays and failure rates as the engine holds them: the draws from a seed, their bounds,
/// and what DoppelRemote sends of them.
@Suite struct RandomDelayTests {
  @Test func outOfRangeDistributionsAreTamedNotTrapped() {
    var generator = SplitMix64(seed: 1)
    #expect(RandomDelay.uniform(min: .seconds(5), max: .seconds(1)) == .uniform(min: .seconds(1), max: .seconds(5)))
    #expect(RandomDelay.uniform(min: .seconds(-5), max: .seconds(-1)).draw(&generator) == .zero)
    let huge = RandomDelay.lognormal(median: .seconds(1_000_000_000), sigma: .infinity)
    #expect(huge.draw(&generator) == RandomDelay.longest)
    let wide = RandomDelay.lognormal(median: .seconds(80_000), sigma: 10)
    for _ in 0..<1000 { #expect(wide.draw(&generator) <= RandomDelay.longest) }
  }

  @Test func faultsRandomDelaysFailureRatesAndProxiesAreSentAndReadBack() throws {
    let sent: [(Responder, JSONValue)] = [
      (.response(.fault(.connectionReset)), ["fault": "connectionReset"]),
      (.response(.fault(.emptyResponse).delayed(by: .seconds(1))), ["fault": "emptyResponse", "delay": 1]),
      (
        .response(.status(204).delayed(by: .uniform(min: .milliseconds(100), max: .milliseconds(500)))),
        ["status": 204, "delay": ["uniform": ["min": 0.1, "max": 0.5]]]
      ),
      (
        .response(.status(204).delayed(by: .lognormal(median: .milliseconds(250), sigma: 0.5))),
        ["status": 204, "delay": ["lognormal": ["median": 0.25, "sigma": 0.5]]]
      ),
      (
        .response(.status(200).failing(rate: 0.25, with: .fault(.malformedChunk))),
        ["status": 200, "failing": ["rate": 0.25, "with": ["fault": "malformedChunk"]]]
      ),
      (.proxy(to: URL(string: "http://127.0.0.1:9/v2")!), ["proxy": ["to": "http://127.0.0.1:9/v2"]]),
      (
        .proxy(to: URL(string: "https://api.example.com")!, recordingTo: URL(fileURLWithPath: "/tmp/x/api.har")),
        ["proxy": ["to": "https://api.example.com", "record": "/tmp/x/api.har"]]
      ),
    ]
    for (responder, json) in sent {
      let wire = try responder.manifestResponse()
      #expect(wire == json)
      let stub: JSONValue = ["request": "/a", "response": wire]
      let definition = try StubDefinition(
        parsing: try JSONEncoder().encode(stub), source: "request body", directory: URL(fileURLWithPath: "/tmp"))
      let read = Backend(issueReporter: .ignore).register(definition).responder
      #expect(try read.manifestResponse() == json)
    }
  }
}
