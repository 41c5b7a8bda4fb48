import DoppelCore
import DoppelRecording
@_spi(DoppelInternals) import DoppelToolkit
import Foundation

/// Every key a manifest object may have, by kind of object: the one description of the format.
/// The reader refuses other keys; the JSON Schema in `Schemas/doppel-manifest.schema.json` lists
/// the same keys, and what `DoppelRemote` writes uses only these and every one Swift can say (tests
/// keep all three in step).
package enum ManifestKeys {
  /// The top level.
  package static let manifest = [
    "$schema", "description", "seed", "fixtureDirectory", "cassettes", "unmatched", "stubs", "scenarios", "graphql",
  ]
  /// One scenario under `scenarios`.
  package static let scenario = ["description", "fixtureDirectory", "cassettes", "stubs", "graphql"]
  /// The top level's (or a scenario's) `graphql`: a schema served with made-up data.
  static let graphQLSchema = ["schema", "endpoint", "seed", "listLength", "types", "fields", "scalars"]
  /// One answer of a `graphql`'s `fields`.
  static let graphQLField = ["json", "error", "extensions"]
  /// One cassette under `cassettes`, when it is an object rather than a path.
  package static let cassette = ["file", "matching", "timings"]
  /// A cassette's `matching`.
  static let cassetteMatching = [
    "methodAndPath", "ignoringQueryItems", "ignoringAllQueryItems", "comparingHeaders", "ignoringHeaders",
    "comparingBody", "ignoringJSONFields",
  ]
  /// One stub.
  package static let stub = [
    "name", "request", "response", "times", "requiresState", "setsState", "stateMachine", "drift",
  ]
  /// A stub's `request`.
  package static let request = [
    "method", "url", "host", "pathGlob", "pathRegex", "query", "queryExactly", "headers",
    "json", "jsonContaining", "text", "form", "graphql",
  ]
  /// A request's `graphql`.
  package static let graphQL = ["operation", "persistedQueryHash", "variables", "exactVariables"]
  /// The request body keys, of which one at most.
  package static let requestBody = ["json", "jsonContaining", "text", "form"]
  /// A stub's `response`.
  package static let response = [
    "status", "headers", "json", "text", "file", "contentType", "error", "redirect", "never", "sequence", "then",
    "delay", "throttle", "chunked", "dropAfterBytes", "template", "websocket", "events", "every", "thenDrop",
    "fault", "failing", "proxy",
  ]
  /// One response of a `sequence`: a response without `sequence`, `then` and `proxy`.
  static let sequenceItem = response.filter { $0 != "sequence" && $0 != "then" && $0 != "proxy" }
  /// The response of a `failing`: a response without its own `failing`.
  static let failingResponse = sequenceItem.filter { $0 != "failing" }
  /// The fault names (`"fault": "emptyResponse"`).
  package static let faults = ConnectionFault.allCases.map(\.rawValue)
  /// The response body keys, of which one at most.
  package static let responseBody = ["json", "text", "file"]
  /// A response's `chunked`.
  package static let chunked = ["size", "every"]
  /// One server-sent event of a response's `events`.
  package static let event = ["id", "event", "data", "retry", "comment"]
  /// A response's `delay` when it is random.
  package static let randomDelay = ["uniform", "lognormal"]
  /// A uniform random delay.
  package static let uniformDelay = ["min", "max"]
  /// A lognormal random delay.
  package static let lognormalDelay = ["median", "sigma"]
  /// A response's `failing`.
  package static let failing = ["rate", "with"]
  /// A response's `proxy` when it is an object.
  package static let proxy = ["to", "record"]
  /// A response's `redirect`.
  package static let redirect = ["to", "status", "follow"]
  /// A response's `websocket`.
  package static let webSocket = ["onConnect", "on"]
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
