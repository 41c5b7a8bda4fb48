import Doppel
import Foundation
import TestSupport
import Testing

/// Faults as WireMock has them, random delays and failure rates drawn from a seed.
@Suite(.timeLimit(.minutes(1))) struct FaultAndChanceTests {
  /// The code each fault fails with: on Linux, what URLSession reported for the same bytes from a
  /// real server (the stub server's tests check it against the wire).
  static let expectedCodes: [(Fault, URLError.Code)] = {
    #if canImport(FoundationNetworking)
      [
        (.emptyResponse, .badServerResponse), (.malformedChunk, .unknown), (.randomBytesThenClose, .unsupportedURL),
        (.connectionReset, .networkConnectionLost),
      ]
    #else
      [
        (.emptyResponse, .networkConnectionLost), (.malformedChunk, .cannotParseResponse),
        (.randomBytesThenClose, .cannotParseResponse), (.connectionReset, .networkConnectionLost),
      ]
    #endif
  }()

  @Test func eachFaultFailsURLSessionCallersWithTheCodeARealServerGives() async throws {
    for (fault, code) in Self.expectedCodes {
      let backend = quietBackend()
      backend.stub(.get("https://api.example.com/fault"), .fault(fault))
      await expectURLError(code) { _ = try await backend.send(.get, "https://api.example.com/fault") }
      await expectURLError(code) {
        _ = try await backend.respond(to: URLRequest(url: URL(string: "https://api.example.com/fault")!))
      }
    }
  }

  @Test func aFaultSaysWhatItIs() async throws {
    let backend = quietBackend()
    backend.stub(.get("https://api.example.com/empty"), .fault(.emptyResponse))
    do {
      _ = try await backend.respond(to: URLRequest(url: URL(string: "https://api.example.com/empty")!))
      Issue.record("expected a failure")
    } catch let error as URLError {
      #expect(error.localizedDescription == "Empty reply from server (Response.fault(.emptyResponse)).")
    }
    #expect(
      Fault.allFaults.map(\.name) == ["emptyResponse", "malformedChunk", "randomBytesThenClose", "connectionReset"])
    #expect("\(Fault.malformedChunk)" == ".malformedChunk")
  }

  /// The delays `count` requests wait, each read off the manual clock.
  private func delays(seed: UInt64, _ response: Response, count: Int = 5) async throws -> [Duration] {
    let clock = ManualClock()
    let backend = Backend(issueReporter: .ignore, clock: clock)
    backend.seed = seed
    backend.stub(.get("https://api.example.com/slow"), response)
    var delays: [Duration] = []
    for _ in 0..<count {
      let request = URLRequest(url: URL(string: "https://api.example.com/slow")!)
      let load = Task { try await backend.respond(to: request) }
      await clock.waitForSleepers()
      let before = clock.now
      #expect(clock.advanceToNextDeadline())
      delays.append(before.duration(to: clock.now))
      _ = try await load.value
    }
    return delays
  }

  @Test func aUniformDelayIsDrawnFromTheSeedOnTheBackendsClock() async throws {
    let response = Response.text("late").delayed(by: .uniform(min: .milliseconds(100), max: .milliseconds(500)))
    let first = try await delays(seed: 7, response)
    #expect(
      first == [
        .nanoseconds(388_603_272), .nanoseconds(359_881_735), .nanoseconds(319_749_730), .nanoseconds(341_693_922),
        .nanoseconds(239_223_401),
      ])
    #expect(try await delays(seed: 7, response) == first)
    #expect(try await delays(seed: 8, response) != first)
    #expect(first.allSatisfy { $0 >= .milliseconds(100) && $0 <= .milliseconds(500) })
  }

  /// A fixed delay replaces a random one, and a random one a fixed one: the last one given holds.
  @Test func aFixedDelayReplacesARandomOneAndARandomOneAFixedOne() async throws {
    let random = Response.ok.delayed(by: .uniform(min: .seconds(1), max: .seconds(2)))
    let fixed = random.delayed(by: .seconds(3))
    #expect(try await delays(seed: 7, fixed, count: 3) == [.seconds(3), .seconds(3), .seconds(3)])
    let uniform = RandomDelay.uniform(min: .milliseconds(100), max: .milliseconds(500))
    let again = fixed.delayed(by: uniform)
    let drawn = try await delays(seed: 7, again)
    #expect(try await delays(seed: 7, Response.ok.delayed(by: uniform)) == drawn)
    #expect(drawn.allSatisfy { $0 >= .milliseconds(100) && $0 <= .milliseconds(500) })
  }

  @Test func aLognormalDelayIsDrawnFromTheSeed() async throws {
    let response = Response.text("late").delayed(by: .lognormal(median: .milliseconds(200), sigma: 0.5))
    let first = try await delays(seed: 42, response)
    #expect(
      first == [
        .nanoseconds(310_829_540), .nanoseconds(338_508_362), .nanoseconds(396_755_089), .nanoseconds(193_778_807),
        .nanoseconds(190_373_380),
      ])
    #expect(try await delays(seed: 42, response) == first)
  }

  /// What `count` requests get from a failing stub.
  private func outcomes(seed: UInt64, count: Int = 20) async -> String {
    let backend = quietBackend()
    backend.seed = seed
    backend.stub(.get("https://api.example.com/flaky"), .text("ok").failing(rate: 0.3, with: .status(503)))
    var statuses: [String] = []
    for _ in 0..<count {
      let outcome = await backend.outcome(.get, "https://api.example.com/flaky")
      statuses.append(outcome == "200 ok" ? "." : outcome == "503 " ? "F" : outcome)
    }
    return statuses.joined()
  }

  @Test func aFailureRateFailsTheSameRequestsForTheSameSeed() async {
    let first = await outcomes(seed: 1)
    #expect(first == "..F.F..FFF..F......F")
    #expect(await outcomes(seed: 1) == first)
    #expect(await outcomes(seed: 2) != first)
  }

  @Test func aFailureRateCanFailWithAFaultAndTheRatesBoundsHold() async throws {
    let backend = quietBackend()
    backend.stub(.get("https://api.example.com/always"), .text("ok").failing(rate: 7, with: .fault(.emptyResponse)))
    backend.stub(.get("https://api.example.com/never"), .text("ok").failing(rate: -1, with: .status(500)))
    backend.stub(.get("https://api.example.com/nan"), .text("ok").failing(rate: .nan, with: .status(500)))
    for _ in 0..<20 {
      #expect(await backend.outcome(.get, "https://api.example.com/always") != "200 ok")
      #expect(await backend.outcome(.get, "https://api.example.com/never") == "200 ok")
      #expect(await backend.outcome(.get, "https://api.example.com/nan") == "200 ok")
    }
  }

  @Test func stubsDrawIndependentlyAndSettingTheSeedStartsAgain() async {
    func flaky(requestsToOther: Int) async -> (Backend, String) {
      let backend = quietBackend()
      backend.seed = 1
      backend.stub(.get("https://api.example.com/other"), .text("ok").failing(rate: 0.5, with: .status(503)))
      backend.stub(.get("https://api.example.com/flaky"), .text("ok").failing(rate: 0.3, with: .status(503)))
      for _ in 0..<requestsToOther { _ = await backend.outcome(.get, "https://api.example.com/other") }
      return (backend, await Self.statuses(backend, "https://api.example.com/flaky"))
    }
    let (backend, alone) = await flaky(requestsToOther: 0)
    // Requests to another stub do not change what this one draws.
    #expect(await flaky(requestsToOther: 5).1 == alone)
    // Setting the seed, even to the same value, starts the draws again.
    backend.seed = 1
    #expect(await Self.statuses(backend, "https://api.example.com/flaky") == alone)
  }

  /// Bounds written the other way round name one range: served as if swapped, with a warning
  /// (the admin API's description allows them, issue 49, point 7).
  @Test func aUniformDelayWithItsBoundsSwappedIsServedWithAWarning() throws {
    let manifest = try Manifest(
      data: Data(#"{"stubs": [{"request": "/a", "response": {"delay": {"uniform": {"min": 2, "max": 1}}}}]}"#.utf8),
      url: URL(fileURLWithPath: "doppel.json"))
    #expect(
      manifest.warnings == [
        #"doppel.json:1:82: stubs[0].response.delay.uniform.max: warning: "max" is shorter than "min"; the delay is drawn between them as if they were swapped. Swap them."#
      ])
  }

  /// `.` for each `200 ok`, `F` for anything else, over 20 requests.
  static func statuses(_ backend: Backend, _ url: String) async -> String {
    var statuses = ""
    for _ in 0..<20 { statuses += await backend.outcome(.get, url) == "200 ok" ? "." : "F" }
    return statuses
  }

  @Test(
    arguments: Example.list([
      (
        #"{"stubs": [{"request": "/a", "response": {"fault": "emptyRespons"}}]}"#,
        #"1:52: stubs[0].response.fault: "emptyRespons" is not a fault. Did you mean "emptyResponse"? Use one of: emptyResponse, malformedChunk, randomBytesThenClose, connectionReset."#
      ),
      (
        #"{"stubs": [{"request": "/a", "response": {"fault": "emptyResponse", "status": 200}}]}"#,
        #"1:69: stubs[0].response: "status" cannot be used with "fault": a fault has no HTTP response. Remove one."#
      ),
      (
        #"{"stubs": [{"request": "/a", "response": {"delay": {"unifrom": {"min": 1, "max": 2}}}}]}"#,
        #"1:53: stubs[0].response.delay: unknown key "unifrom". Did you mean "uniform"? The keys of a random delay ({"uniform": {"min": "50ms", "max": "400ms"}} or {"lognormal": {"median": "120ms", "sigma": 0.6}}) are: uniform, lognormal."#
      ),
      (
        #"{"stubs": [{"request": "/a", "response": {"delay": {"uniform": {"min": "50ms"}}}}]}"#,
        #"1:64: stubs[0].response.delay.uniform: a uniform delay needs both "min" and "max", for example {"min": "50ms", "max": "400ms"}."#
      ),
      (
        #"{"stubs": [{"request": "/a", "response": {"delay": {"lognormal": {"median": "1s", "sigma": 11}}}}]}"#,
        #"1:92: stubs[0].response.delay.lognormal.sigma: expected a spread from 0 to 10, such as 0.6, found the number 11, which is out of range."#
      ),
      (
        #"{"stubs": [{"request": "/a", "response": {"delay": {"lognormal": {"median": "1s"}}}}]}"#,
        #"1:66: stubs[0].response.delay.lognormal: a lognormal delay needs both "median" (a duration) and "sigma" (the spread, such as 0.6), for example {"median": "120ms", "sigma": 0.6}."#
      ),
      (
        #"{"stubs": [{"request": "/a", "response": {"failing": {"rate": 1.5, "with": {"status": 503}}}}]}"#,
        #"1:63: stubs[0].response.failing.rate: expected a share of requests from 0 to 1, such as 0.2, found the number 1.5, which is out of range."#
      ),
      (
        #"{"stubs": [{"request": "/a", "response": {"failing": {"rate": 0.5}}}]}"#,
        #"1:54: stubs[0].response.failing: a failure rate needs both "rate" (the share of requests that fail, from 0 to 1) and "with" (the response they get), for example {"rate": 0.2, "with": {"status": 503}}."#
      ),
      (
        #"{"stubs": [{"request": "/a", "response": {"failing": {"rate": 0.5, "with": {"stauts": 503}}}}]}"#,
        #"1:77: stubs[0].response.failing.with: unknown key "stauts". Did you mean "status"? The keys of the response of failed requests are: status, headers, json, text, file, contentType, error, redirect, never, delay, throttle, chunked, dropAfterBytes, template, websocket, events, every, thenDrop, fault."#
      ),
      (
        #"{"seed": -1, "stubs": []}"#,
        #"1:10: seed: expected a seed for random delays and failures (0 or more), found the number -1, which is too small."#
      ),
      (
        #"{"stubs": [{"request": "/a", "response": {"proxy": "ftp://files.example.com"}}]}"#,
        #"1:52: stubs[0].response.proxy: The proxy upstream "ftp://files.example.com" is not an absolute http or https URL. Write it as https://api.example.com (a path prefix may follow)."#
      ),
      (
        #"{"stubs": [{"request": "/a", "response": {"proxy": "https://api.example.com", "status": 200}}]}"#,
        #"1:79: stubs[0].response: "status" cannot be used with "proxy": a proxied response is the upstream's. Remove one."#
      ),
      (
        #"{"stubs": [{"request": "/a", "response": {"proxy": {"too": "https://api.example.com"}}}]}"#,
        #"1:53: stubs[0].response.proxy: unknown key "too". Did you mean "to"? The keys of a proxy ("https://api.example.com", or {"to": "https://api.example.com", "record": "cassettes/api.har"}) are: to, record."#
      ),
      (
        #"{"stubs": [{"request": "/a", "response": {"sequence": [{"proxy": "https://api.example.com"}]}}]}"#,
        #"1:57: stubs[0].response.sequence[0]: unknown key "proxy". The keys of a response of a sequence are: status, headers, json, text, file, contentType, error, redirect, never, delay, throttle, chunked, dropAfterBytes, template, websocket, events, every, thenDrop, fault, failing."#
      ),
    ]))
  func manifestMistakes(example: Example<String, String>) {
    let (json, expected) = (example.input, example.expected)
    #expect(manifestError(json) == "\(ManifestErrorTests.file):\(expected)")
  }
}
