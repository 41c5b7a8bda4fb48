/// Every key a manifest object may have, by kind of object. Unknown keys are errors, and the JSON
/// Schema in `Schemas/doppel-manifest.schema.json` lists the same keys (a test keeps them in step).
enum ManifestKeys {
  /// The top level.
  static let manifest = [
    "$schema", "description", "seed", "fixtureDirectory", "cassettes", "unmatched", "stubs", "scenarios", "graphql",
  ]
  /// One scenario under `scenarios`.
  static let scenario = ["description", "fixtureDirectory", "cassettes", "stubs", "graphql"]
  /// The top level's (or a scenario's) `graphql`: a schema served with made-up data.
  static let graphQLSchema = ["schema", "endpoint", "seed", "listLength", "types", "fields", "scalars"]
  /// One answer of a `graphql`'s `fields`.
  static let graphQLField = ["json", "error", "extensions"]
  /// One cassette under `cassettes`, when it is an object rather than a path.
  static let cassette = ["file", "matching", "timings"]
  /// A cassette's `matching`.
  static let cassetteMatching = [
    "methodAndPath", "ignoringQueryItems", "ignoringAllQueryItems", "comparingHeaders", "ignoringHeaders",
    "comparingBody", "ignoringJSONFields",
  ]
  /// One stub.
  static let stub = [
    "name", "request", "response", "times", "requiresState", "setsState", "stateMachine", "drift",
  ]
  /// A stub's `request`.
  static let request = [
    "method", "url", "host", "pathGlob", "pathRegex", "query", "queryExactly", "headers",
    "json", "jsonContaining", "text", "form", "graphql",
  ]
  /// A request's `graphql`.
  static let graphQL = ["operation", "persistedQueryHash", "variables", "exactVariables"]
  /// The request body keys, of which one at most.
  static let requestBody = ["json", "jsonContaining", "text", "form"]
  /// A stub's `response`.
  static let response = [
    "status", "headers", "json", "text", "file", "contentType", "error", "redirect", "never", "sequence", "then",
    "delay", "throttle", "chunked", "dropAfterBytes", "template", "websocket", "events", "every", "thenDrop",
    "fault", "failing", "proxy",
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
  /// One server-sent event of a response's `events`.
  static let event = ["id", "event", "data", "retry", "comment"]
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
  /// A response's `websocket`.
  static let webSocket = ["onConnect", "on"]
  /// One rule of a `websocket`'s `on`: at most one matcher, and the reply.
  static let webSocketRule = ["message", "regex", "json", "reply"]
  /// One action of a WebSocket script: one of send, json, binary, close, drop; and a delay.
  static let webSocketAction = ["send", "json", "binary", "close", "drop", "delay"]
  /// A WebSocket action's `close`.
  static let webSocketClose = ["code", "reason"]
  /// The values of a sequence's `then`.
  static let sequenceEnds = ["repeatLast", "cycle", "fail"]
  /// The string values of the top-level `unmatched` (it may also be a response object).
  static let unmatchedPolicies = ["fail", "passthrough"]
}
