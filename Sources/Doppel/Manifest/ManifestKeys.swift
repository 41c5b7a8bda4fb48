/// Every key a manifest object may have, by kind of object. Unknown keys are errors, and the JSON
/// Schema in `Schemas/doppel-manifest.schema.json` lists the same keys (a test keeps them in step).
enum ManifestKeys {
  /// The top level.
  static let manifest = ["$schema", "description", "seed", "fixtureDirectory", "unmatched", "stubs", "scenarios"]
  /// One scenario under `scenarios`.
  static let scenario = ["description", "fixtureDirectory", "stubs"]
  /// One stub.
  static let stub = ["name", "request", "response", "times", "requiresState", "setsState", "stateMachine"]
  /// A stub's `request`.
  static let request = [
    "method", "url", "host", "pathGlob", "pathRegex", "query", "queryExactly", "headers",
    "json", "jsonContaining", "text", "form",
  ]
  /// The request body keys, of which one at most.
  static let requestBody = ["json", "jsonContaining", "text", "form"]
  /// A stub's `response`.
  static let response = [
    "status", "headers", "json", "text", "file", "contentType", "error", "redirect", "never", "sequence", "then",
    "delay", "throttle", "chunked", "dropAfterBytes", "template", "fault", "failing", "proxy",
  ]
  /// One response of a `sequence`: a response without `sequence`, `then` and `proxy`.
  static let sequenceItem = response.filter { $0 != "sequence" && $0 != "then" && $0 != "proxy" }
  /// The response of a `failing`: a response without its own `failing`.
  static let failingResponse = sequenceItem.filter { $0 != "failing" }
  /// The fault names (`"fault": "emptyResponse"`).
  static let faults = ConnectionFault.allCases.map(\.rawValue)
  /// The response body keys, of which one at most.
  static let responseBody = ["json", "text", "file"]
  /// A response's `chunked`.
  static let chunked = ["size", "every"]
  /// A response's `delay` when it is random.
  static let randomDelay = ["uniform", "lognormal"]
  /// A uniform random delay.
  static let uniformDelay = ["min", "max"]
  /// A lognormal random delay.
  static let lognormalDelay = ["median", "sigma"]
  /// A response's `failing`.
  static let failing = ["rate", "with"]
  /// A response's `proxy` when it is an object.
  static let proxy = ["to", "record"]
  /// A response's `redirect`.
  static let redirect = ["to", "status", "follow"]
  /// The values of a sequence's `then`.
  static let sequenceEnds = ["repeatLast", "cycle", "fail"]
  /// The string values of the top-level `unmatched` (it may also be a response object).
  static let unmatchedPolicies = ["fail", "passthrough"]
}
