@_spi(DoppelInternals) import DoppelToolkit
import Foundation

/// How a stub produces its response: always the same one, one of a sequence, or a closure.
///
/// Wherever a stub takes a ``Response``, it also takes a `Responder`:
///
/// ```swift
/// backend.stub(.get("/flaky"), .sequence([.status(503), .json(breeds)]))
/// backend.stub(.get("/poll"), .sequence([.status(202), .status(200)], then: .cycle))
/// backend.stub(.get("/users/{id}")) { request in .json(User(id: request.pathParameters["id"]!)) }
/// ```
public struct Responder: Sendable {
  package enum Kind: Sendable {
    case fixed(Response)
    case sequence([Response], SequenceEnd)
    case handler(Handler)
    case proxy(Proxy)
  }

  package struct Handler: Sendable {
    let respond: @Sendable (Request) async throws -> Response
  }

  package let kind: Kind

  package init(kind: Kind) { self.kind = kind }

  /// Always `response`.
  public static func response(_ response: Response) -> Responder { Responder(kind: .fixed(response)) }

  /// The responses in order, one per request; after the last, what `then` says.
  public static func sequence(_ responses: [Response], then: SequenceEnd = .repeatLast) -> Responder {
    Responder(kind: .sequence(responses, then))
  }

  /// A closure computing the response from the request (with ``Request/pathParameters`` filled in).
  /// An error it throws reaches the caller as is (`URLError`s included). `package`: users write
  /// the same stub with `Backend.stub(_:times:name:_:)`'s trailing closure, the one public form.
  package static func handler(_ respond: @escaping @Sendable (Request) async throws -> Response) -> Responder {
    Responder(kind: .handler(Handler(respond: respond)))
  }

  /// A problem known when the stub is made: a body that could not be built (a value that failed
  /// to encode, a bundle resource that does not exist), or an empty sequence.
  package var problem: DoppelError? {
    switch kind {
    case .fixed(let response): return response.problem
    case .handler: return nil
    case .proxy(let proxy): return proxy.problem
    case .sequence(let responses, _):
      if responses.isEmpty {
        return DoppelError.invalidStub("The stub has an empty .sequence([]). Give it at least one response.")
      }
      return responses.lazy.compactMap(\.problem).first
    }
  }

  /// What the `n`th call (from 0) answers synchronously, or `nil` when a closure must run.
  func immediate(call index: Int, stub: StubHandle) -> Response? {
    switch kind {
    case .fixed(let response):
      return response
    case .handler, .proxy:
      return nil
    case .sequence(let responses, let end):
      guard !responses.isEmpty else {
        return .error(
          DoppelError.invalidStub(
            "The stub declared at \(stub.location) has an empty .sequence([]). Give it at least one response."))
      }
      if index < responses.count { return responses[index] }
      switch end.kind {
      case .repeatLast: return responses[responses.count - 1]
      case .cycle: return responses[index % responses.count]
      case .fail:
        return .error(
          DoppelError.invalidStub(
            "The stub declared at \(stub.location) (\(stub.matcher)) answered all \(responses.count) responses of its sequence; this was call \(index + 1). Add responses, or use .sequence(_:then: .repeatLast) or .cycle."
          ))
      }
    }
  }
}

/// What a ``Responder/sequence(_:then:)`` does once every response was given.
public struct SequenceEnd: Sendable, Hashable {
  package enum Kind: Sendable, Hashable { case repeatLast, cycle, fail }
  package let kind: Kind

  /// Keep answering the last response (the default).
  public static let repeatLast = SequenceEnd(kind: .repeatLast)
  /// Start again from the first.
  public static let cycle = SequenceEnd(kind: .cycle)
  /// Fail every further request with a ``DoppelError`` that says the sequence ran out.
  public static let fail = SequenceEnd(kind: .fail)
}
