import Foundation
import Testing

@testable import Doppel

/// How a HAR entry's recorded timings become a response's delay and pacing, read off the response.
@Suite struct RecordedTimingsTests {
  @Test func theReceiveTimeSpreadsTheBody() throws {
    let timings: JSONValue = ["send": 0, "wait": 0, "receive": 500]
    let entry = try CassetteTimingsTests.entry(
      "https://api.example.com/big", body: String(repeating: "x", count: 1000), timings: timings)
    let response = try entry.withRecordedTimings(.text(String(repeating: "x", count: 1000)))
    guard case .throttle(let rate)? = response.timing.pacing else {
      Issue.record("expected the body to be throttled")
      return
    }
    #expect(rate == 2000)
    #expect(response.timing.delay == .zero)
  }
}
