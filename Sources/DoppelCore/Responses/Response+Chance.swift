@_spi(DoppelInternals) import DoppelToolkit
import Foundation

/// A delay drawn at random for each request, for ``Response/delayed(by:)-(RandomDelay)``:
///
/// ```swift
/// .json(breeds).delayed(by: .uniform(min: .milliseconds(50), max: .milliseconds(400)))
/// .json(breeds).delayed(by: .lognormal(median: .milliseconds(120), sigma: 0.6))
/// ```
///
/// The draws come from the stub's generator, seeded from ``Backend/seed``: the same seed gives the
/// same delays, request after request, so a slow, jittery backend can be reproduced exactly.
public struct RandomDelay: Sendable, Hashable, CustomStringConvertible {
  package enum Kind: Sendable, Hashable {
    case uniform(min: Duration, max: Duration)
    case lognormal(median: Duration, sigma: Double)
  }

  package let kind: Kind

  /// The longest delay a draw gives: 24 hours (longer draws are cut to it).
  public static let longest = Duration.seconds(86_400)

  /// Any delay from `min` to `max`, each as likely. Negative bounds count as zero; bounds given
  /// the wrong way round are swapped.
  public static func uniform(min: Duration, max: Duration) -> RandomDelay {
    let low = Swift.min(Swift.max(min, .zero), longest)
    let high = Swift.min(Swift.max(max, .zero), longest)
    return RandomDelay(kind: .uniform(min: Swift.min(low, high), max: Swift.max(low, high)))
  }

  /// Delays whose logarithm is normally distributed: most near `median`, a long tail of slow ones,
  /// as real latencies are. `sigma` is the standard deviation of the logarithm (0.25 is a narrow
  /// spread, 1 a wide one); a negative or non-finite `sigma` counts as 0 (always `median`).
  public static func lognormal(median: Duration, sigma: Double) -> RandomDelay {
    let spread = sigma.isFinite ? Swift.min(abs(sigma), 10) : 0
    return RandomDelay(kind: .lognormal(median: Swift.min(Swift.max(median, .zero), longest), sigma: spread))
  }

  /// `uniform(50 ms…400 ms)`, `lognormal(median 120 ms, sigma 0.6)`.
  public var description: String {
    switch kind {
    case .uniform(let min, let max): "uniform(\(min)…\(max))"
    case .lognormal(let median, let sigma): "lognormal(median \(median), sigma \(sigma))"
    }
  }

  /// One delay, from the generator's next numbers.
  func draw(_ generator: inout SplitMix64) -> Duration {
    let nanoseconds: Double
    switch kind {
    case .uniform(let min, let max):
      let low = Self.nanoseconds(min)
      nanoseconds = low + (Self.nanoseconds(max) - low) * generator.nextUnit()
    case .lognormal(let median, let sigma):
      // Box–Muller: a standard normal value from two uniform ones (the first kept above zero).
      let first = 1 - generator.nextUnit()
      let second = generator.nextUnit()
      let normal = (-2 * Foundation.log(first)).squareRoot() * Foundation.cos(2 * Double.pi * second)
      nanoseconds = Self.nanoseconds(median) * Foundation.exp(sigma * normal)
    }
    // In range before converting, so no draw can trap.
    let bounded = Swift.min(Swift.max(nanoseconds.rounded(), 0), Self.nanoseconds(Self.longest))
    return .nanoseconds(Int64(bounded))
  }

  private static func nanoseconds(_ duration: Duration) -> Double {
    let (seconds, attoseconds) = duration.components
    return Double(seconds) * 1e9 + Double(attoseconds) / 1e9
  }
}

/// What a response decides at random for each request: a delay, whether it fails.
package struct Chance: Sendable {
  package var delay: RandomDelay?
  /// The share of requests (0 to 1) answered with `response` instead.
  package var failure: (rate: Double, response: Response)?

  /// What one request gets: `response`, or the failure, with its delay drawn.
  func decide(for response: Response, _ generator: inout SplitMix64) -> Response {
    var decided = response
    decided.chance = nil
    if let failure {
      // Drawn for every request, so the delays that follow do not depend on the outcome.
      let fails = generator.nextUnit() < failure.rate
      if fails {
        return failure.response.chance.map { $0.decide(for: failure.response, &generator) } ?? failure.response
      }
    }
    if let delay { decided.timing.delay = delay.draw(&generator) }
    return decided
  }
}

extension Response {
  /// This response after a delay drawn for each request from `delay`; time flows on the backend's
  /// clock. The same ``Backend/seed`` gives the same delays in the same order.
  ///
  /// ```swift
  /// backend.stub(.get("/breeds"), .json(breeds).delayed(by: .uniform(min: .milliseconds(50), max: .seconds(2))))
  /// ```
  public func delayed(by delay: RandomDelay) -> Response {
    var copy = self
    var chance = copy.chance ?? Chance()
    chance.delay = delay
    copy.chance = chance
    copy.timing.delay = .zero
    return copy
  }

  /// This response, except that a share `rate` of requests (0 to 1), picked at random, get
  /// `failure` instead: a flaky backend.
  ///
  /// ```swift
  /// backend.stub(.get("/breeds"), .json(breeds).failing(rate: 0.2, with: .status(503)))
  /// backend.stub(.get("/feed"), .json(feed).failing(rate: 0.05, with: .fault(.emptyResponse)))
  /// ```
  ///
  /// Which requests fail is drawn from the stub's generator, seeded from ``Backend/seed``: the same
  /// seed fails the same requests. A rate outside 0…1 is taken as the nearest bound; `failure` is
  /// played as it is (its own delay and faults).
  public func failing(rate: Double, with failure: Response) -> Response {
    var copy = self
    var chance = copy.chance ?? Chance()
    chance.failure = (rate.isNaN ? 0 : Swift.min(Swift.max(rate, 0), 1), failure)
    copy.chance = chance
    return copy
  }

  /// The response a request gets: decided with `generator` when it has a random part.
  func decided(_ generator: inout SplitMix64) -> Response {
    chance?.decide(for: self, &generator) ?? self
  }
}

extension SplitMix64 {
  /// A number from 0 up to (not including) 1, from the top 53 bits of the next value.
  mutating func nextUnit() -> Double {
    Double(next() >> 11) * 0x1p-53
  }
}
