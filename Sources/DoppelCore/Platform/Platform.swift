@_spi(DoppelInternals) import DoppelToolkit
import Foundation

/// The two Foundations Doppel runs on, and each way they differ that Doppel depends on.
///
/// Everything that differs between Apple's Foundation and swift-corelibs-foundation lives in this
/// folder, named for what it is, with the measured reason beside it (the measurements are in the
/// project's notes on Linux URLSession; the Apple side follows Apple's documented `URLProtocol`
/// contract). Code elsewhere asks a `Platform` value instead of testing the platform with `#if`,
/// so both sides of each difference compile on Linux, and Linux tests can drive the Apple side
/// (with a fake `URLProtocolClient` on a run-loop thread). `#if` remains only where an API exists
/// on one side alone: FoundationNetworking's `URLSession` subclass (``DoppelSession``), the
/// network guard's proxy variables, the upload progress a session delegate is sent, waking a run
/// loop, the swizzled `URLSessionConfiguration` getters (``ConfigurationGetters``, Objective-C
/// runtime), and the C library's `stat` field names.
enum Platform: Sendable, Equatable {
  /// Apple's Foundation (macOS, iOS, tvOS, watchOS, visionOS): `URLSession` on CFNetwork.
  case apple
  /// swift-corelibs-foundation (Linux): `URLSession` in FoundationNetworking, on libcurl.
  case corelibs

  /// The Foundation this process runs on.
  static let current: Platform = {
    #if canImport(FoundationNetworking)
      .corelibs
    #else
      .apple
    #endif
  }()

  /// How the URLSession front door calls the `URLProtocolClient`.
  enum Delivery: Sendable, Equatable {
    /// On the session's own queue: synchronously inside `startLoading`, and for answers that take
    /// time, through a hop back onto the task's work queue. Measured on Linux: calling the client
    /// from any other thread crashes URLSession (`URLSession.behaviour(for:)`) once two requests
    /// are in flight; a client call made once the task stopped is a fatal error
    /// (TaskRegistry.swift:118), so delivery and `stopLoading` share one lock, held during calls.
    case sessionQueue
    /// On the thread that called `startLoading`, in the run-loop modes it was running then, and
    /// never while a Doppel lock is held: Apple's documented contract for `URLProtocol`, which
    /// CFNetwork's loader thread and its run loop rely on (see ``LoadingThread``).
    case loadingThread
  }

  /// How this platform's URLSession wants its client called.
  var delivery: Delivery {
    switch self {
    case .apple: .loadingThread
    case .corelibs: .sessionQueue
    }
  }

  /// Whether a redirect goes to the client through `urlProtocol(_:wasRedirectedTo:redirectResponse:)`,
  /// so the session's delegate decides (`willPerformHTTPRedirection`) and `currentRequest`
  /// follows, as with a real server. On Linux that call is a fatal error ("doesn't currently
  /// handle redirects directly", URLSessionTask.swift:1393) and a 3xx sent as a response is
  /// returned as it is, so Doppel follows redirects itself there.
  var redirectsThroughClient: Bool { self == .apple }

  /// Whether URLSession has already added the stored cookies as a `Cookie` header when the
  /// protocol sees a request (measured on Linux). Elsewhere Doppel adds them from the session's
  /// cookie storage.
  var sessionAddsStoredCookies: Bool { self == .corelibs }

  /// Whether a 401 carrying `WWW-Authenticate` must reach URLSession under another name. On Linux
  /// such a response never completes (FoundationNetworking starts an authentication it cannot
  /// finish, and crashes on a challenge without a realm), so the header is delivered as
  /// `X-Doppel-WWW-Authenticate`; the journal keeps the original.
  var renamesAuthenticationChallenge: Bool { self == .corelibs }

  /// Whether a download task reaching the protocol must be failed with a message. On Linux,
  /// FoundationNetworking gives no file through a `URLProtocol` (completion handler), crashes
  /// (async `download(for:)`, URLSession.swift:849; a delegate, URLSessionTask.swift:1170), so a
  /// backend's own session routes downloads through data tasks (``DoppelSession``) and any other
  /// download task is refused. Apple's URLSession writes the file from the protocol's data itself.
  var refusesDownloadTasks: Bool { self == .corelibs }

  /// Whether a WebSocket task can reach the protocol at all. On Linux it does only with a
  /// WebSocket-capable libcurl, and then must be failed with a message (its messages travel
  /// through FoundationNetworking's own protocol class only). Apple's URLSession never hands a
  /// WebSocket task to a custom `URLProtocol`.
  var refusesWebSocketTasks: Bool { self == .corelibs }

  /// Whether Doppel tells a session delegate about the upload body in the pieces libcurl would
  /// send (FoundationNetworking reports no progress for a body a `URLProtocol` consumes).
  var reportsUploadProgress: Bool { self == .corelibs }

  /// Whether body pieces may be handed to URLSession one by one for every kind of caller. On
  /// Linux completion-handler and `async` callers receive only the last piece given
  /// (URLSessionTask.swift:1305), so pieces are streamed only to a session delegate and
  /// otherwise delivered whole; Apple's URLSession accumulates them for every caller.
  var accumulatesBodyPieces: Bool { self == .apple }

  /// The `URLError` code URLSession reports when a real server sends `fault`'s bytes: measured
  /// against the stub server on Linux (libcurl's words); on Apple platforms, what CFNetwork
  /// reports for a connection that closes or resets before a complete response
  /// (`.networkConnectionLost`) and for bytes that are not HTTP (`.cannotParseResponse`), which
  /// only a Mac run of the wire-fault tests can confirm.
  func urlErrorCode(for fault: ConnectionFault) -> URLError.Code {
    switch (self, fault) {
    case (.corelibs, .empty): .badServerResponse
    case (.corelibs, .malformedChunk): .unknown
    case (.corelibs, .randomBytes): .unsupportedURL
    case (.corelibs, .reset): .networkConnectionLost
    case (.apple, .empty), (.apple, .reset): .networkConnectionLost
    case (.apple, .malformedChunk), (.apple, .randomBytes): .cannotParseResponse
    }
  }
}
