#if Server
  import Doppel

  extension StubServer {
    /// How a ``StubServer`` serves: limits, what unmatched requests get, how requests are matched,
    /// how long shutdown waits, and where each request is reported.
    ///
    /// ```swift
    /// var configuration = StubServer.Configuration()
    /// configuration.unmatchedStatus = 501
    /// configuration.origin = .fixed(URL(string: "https://api.example.com")!)
    /// try await withStubServer(backend, configuration: configuration) { server in … }
    /// ```
    public struct Configuration: Sendable {
      /// Whether the server may listen on an address other than loopback (`127.0.0.0/8`, `::1`).
      /// Off by default: a stub server answers anyone who can reach it, so listening on a network
      /// interface must be asked for.
      public var allowsNonLoopback = false

      /// The scheme, host and port requests are matched as (see ``Origin``). ``Origin/automatic``
      /// by default.
      public var origin: Origin = .automatic

      /// The status of the answer to a request no stub matched, when the backend's unmatched policy
      /// is to fail: 404 by default. Its body is the backend's near-miss report, the same text a
      /// URLSession caller gets: the request, the closest stubs field by field, and the fix.
      public var unmatchedStatus = 404

      /// The largest request head accepted, in bytes: request line and header fields together.
      /// A larger head gets `431 Request Header Fields Too Large` and the connection is closed.
      /// 64 KiB by default.
      public var maximumHeadSize = 64 * 1024

      /// The largest request body accepted, in bytes. A larger body (announced by `Content-Length`
      /// or found while reading a chunked one) gets `413 Content Too Large` and the connection is
      /// closed. 16 MiB by default.
      public var maximumBodySize = 16 * 1024 * 1024

      /// How long ``StubServer/shutdown()`` lets responses in progress finish before it closes
      /// their connections: 5 seconds by default (on the continuous clock, whatever the backend's).
      public var shutdownGracePeriod: Duration = .seconds(5)

      /// Called once for each request as its answer starts, from the server's threads; for
      /// logging (`doppel serve` prints ``ServedRequest/description``).
      public var onRequest: (@Sendable (ServedRequest) -> Void)?

      /// The admin API: on under `/__doppel/` by default (see ``AdminAPI``).
      public var admin = AdminAPI()

      /// The default configuration.
      public init() {}
    }
  }
#endif
