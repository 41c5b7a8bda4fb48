import Doppel

/// A backend for tests whose issues go nowhere: for tests that check failures themselves (in the
/// journal, the errors the requests get) rather than through an issue reporter.
public func quietBackend(clock: any Clock<Duration> = ContinuousClock()) -> Backend {
  Backend(issueReporter: .ignore, clock: clock)
}
