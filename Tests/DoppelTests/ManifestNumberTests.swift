import Doppel
import Foundation
import Testing

/// No number in a manifest can crash the process: each is range-checked into a positioned error
/// that states the allowed range.
@Suite struct ManifestNumberTests {
  static let file = "/project/Fixtures/doppel.json"
  static let tooLong =
    #"is longer than the longest duration, 86400 seconds (24 hours). Write a shorter one; for a response that never comes, write "never": true."#

  private static func delay(_ value: String) -> String {
    #"{"stubs": [{"request": "/a", "response": {"delay": \#(value)}}]}"#
  }

  private static func chunked(size: String = "1", every: String = "1") -> String {
    #"{"stubs": [{"request": "/a", "response": {"chunked": {"size": \#(size), "every": \#(every)}}}]}"#
  }

  @Test(
    arguments: Example.list([
      (delay("1e308"), "1:52: stubs[0].response.delay: 1e308 seconds \(tooLong)"),
      (delay("1e21"), "1:52: stubs[0].response.delay: 1e21 seconds \(tooLong)"),
      (delay("1e400"), "1:52: stubs[0].response.delay: 1e400 seconds \(tooLong)"),
      (delay("86400.5"), "1:52: stubs[0].response.delay: 86400.5 seconds \(tooLong)"),
      (
        delay(#""99999999999999999999999ms""#),
        #"1:52: stubs[0].response.delay: "99999999999999999999999ms" \#(tooLong)"#
      ),
      (
        delay("-1"),
        "1:52: stubs[0].response.delay: a duration cannot be negative, found -1 seconds. Write 0 or more seconds."
      ),
      (
        delay(#""1e400s""#),
        #"1:52: stubs[0].response.delay: the string "1e400s" is not a duration. Write a number of seconds (0.25) or a string with a unit: "250ms" or "1.5s"."#
      ),
      (
        delay(#""NaNs""#),
        #"1:52: stubs[0].response.delay: the string "NaNs" is not a duration. Write a number of seconds (0.25) or a string with a unit: "250ms" or "1.5s"."#
      ),
      (chunked(every: "1e308"), "1:75: stubs[0].response.chunked.every: 1e308 seconds \(tooLong)"),
      (
        chunked(size: "18446744073709551616"),
        "1:63: stubs[0].response.chunked.size: expected a chunk size in bytes (1 to 1000000000), found the number 18446744073709551616, which is too large."
      ),
      (
        chunked(size: "1.5"),
        "1:63: stubs[0].response.chunked.size: expected a chunk size in bytes (1 to 1000000000), found the number 1.5, which is not a whole number."
      ),
      (
        #"{"stubs": [{"request": "/a", "response": {}, "times": 1e21}]}"#,
        "1:55: stubs[0].times: expected how many requests the stub answers (1 to 1000000000), found the number 1e21, which is too large."
      ),
      (
        #"{"stubs": [{"request": "/a", "response": {}, "times": -1}]}"#,
        "1:55: stubs[0].times: expected how many requests the stub answers (1 to 1000000000), found the number -1, which is too small."
      ),
      (
        #"{"stubs": [{"request": "/a", "response": {}, "times": -1e400}]}"#,
        "1:55: stubs[0].times: expected how many requests the stub answers (1 to 1000000000), found the number -1e400, which is not a whole number."
      ),
      (
        #"{"stubs": [{"request": "/a", "response": {"status": 200.5}}]}"#,
        "1:53: stubs[0].response.status: expected an HTTP status from 100 to 599, found the number 200.5, which is not a whole number."
      ),
      (
        #"{"stubs": [{"request": "/a", "response": {"redirect": {"to": "/b", "status": 18446744073709551616}}}]}"#,
        "1:78: stubs[0].response.redirect.status: expected a redirect status from 300 to 399, found the number 18446744073709551616, which is too large."
      ),
      (
        #"{"stubs": [{"request": "/a", "response": {"throttle": 1e308}}]}"#,
        "1:55: stubs[0].response.throttle: expected bytes per second (1 to 1000000000), found the number 1e308, which is too large."
      ),
      (
        #"{"stubs": [{"request": "/a", "response": {"dropAfterBytes": -9223372036854775809}}]}"#,
        "1:61: stubs[0].response.dropAfterBytes: expected a number of bytes (0 to 1000000000), found the number -9223372036854775809, which is too small."
      ),
    ]))
  func refusesNumbersOutOfRange(example: Example<String, String>) {
    let (json, expected) = (example.input, example.expected)
    #expect(manifestError(json) == "\(Self.file):\(expected)")
  }

  @Test func acceptsTheLimits() throws {
    for json in [
      Self.delay("86400"), Self.delay(#""86400000ms""#), Self.delay("0"),
      Self.chunked(size: "1000000000", every: "1e-3"),
      #"{"stubs": [{"request": "/a", "response": {}, "times": 1e9}]}"#,
    ] {
      #expect(manifestError(json) == "loaded", "\(json)")
    }
  }
}
