#if Server
  import Doppel

  extension StubServer {
    /// How a ``StubServer`` serves: limits and timeouts, what unmatched requests get, how requests are matched,
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

      /// How long a client may take to send a request head, from its first byte to the blank line
      /// that ends it: 30 seconds by default.
      ///
      /// The time is a total, not a pause between reads, so a client that sends a head a byte at a
      /// time (slowloris) is cut off too. A head that is late gets `408 Request Timeout` with
      /// `Connection: close`, and the connection closes. Time before the first byte counts toward
      /// ``idleTimeout`` instead. Must be positive.
      public var headerTimeout: Duration = .seconds(30)

      /// How long a request body may pause: the longest time between two reads of body bytes,
      /// 30 seconds by default.
      ///
      /// The time is per read, not a total, so a large upload over a slow link is never cut off
      /// while bytes keep coming; ``maximumBodySize`` bounds its size. A body that stops arriving,
      /// such as one shorter than its `Content-Length`, gets `408 Request Timeout` with
      /// `Connection: close`, and the connection closes. Must be positive.
      public var bodyTimeout: Duration = .seconds(30)

      /// How long a connection may wait for its next request, after it opened or after the
      /// previous response ended, before the server closes it without an answer: 60 seconds by
      /// default. Clients reopen a keep-alive connection the server closed, as they must with any
      /// server. Must be positive.
      public var idleTimeout: Duration = .seconds(60)

      /// How long a WebSocket conversation may go without a frame either way before the server
      /// pings the client: 60 seconds by default (`doppel serve --websocket-idle-timeout`).
      ///
      /// A client that does not answer the ping (with a pong, or any frame) within
      /// ``webSocketPongTimeout`` gets a close frame with code 1001 (going away), and the
      /// connection closes: a conversation nobody is in does not hold a connection slot (see
      /// ``maximumConnections``, which counts upgraded connections too). A client that answers
      /// keeps its conversation open as long as it likes. The HTTP timeouts above stop at the
      /// upgrade. Must be positive.
      public var webSocketIdleTimeout: Duration = .seconds(60)

      /// How long the server waits for the answer to its ping before it closes an idle WebSocket
      /// conversation (see ``webSocketIdleTimeout``): 10 seconds by default. Must be positive.
      public var webSocketPongTimeout: Duration = .seconds(10)

      /// The most client connections open at once, WebSocket conversations included: 1,024 by
      /// default.
      ///
      /// At the limit the server stops accepting, as nginx and Apache do: further connections wait
      /// in the system's listen queue (256 deep) and are served in turn as open ones close, and
      /// beyond the queue the system refuses them. The timeouts above make room by closing
      /// connections that hold a place without using it: idle ones, stalled uploads, clients that
      /// read nothing of an answer for ``idleTimeout`` (the server stops reading from a client that
      /// does not read, so its answers do not pile up in memory), and WebSocket conversations that
      /// do not answer a ping. At most a quarter of them (at least 1) may serve the admin API's
      /// event stream (`GET events`) at once: one more gets a 503 that says so, so that streams
      /// never take every place. Must be at least 1.
      public var maximumConnections = 1_024

      /// How long ``StubServer/shutdown()`` lets responses in progress finish before it closes
      /// their connections: 5 seconds by default (on the continuous clock, whatever the backend's).
      public var shutdownGracePeriod: Duration = .seconds(5)

      /// Called once for each request as its answer starts, from the server's threads; for
      /// logging (`doppel serve` prints ``ServedRequest/description``).
      public var onRequest: (@Sendable (ServedRequest) -> Void)?

      /// The admin API: on under `/__doppel/` by default (see ``AdminAPI``).
      public var admin = AdminAPI()

      /// The origins of web pages that may read the stubs' answers across origins (CORS), such as
      /// `http://localhost:3000` for a web app in development: none by default (`doppel serve
      /// --cors ORIGIN`); `*` allows every origin.
      ///
      /// A stub's answer to a request whose `Origin` is listed gets `Access-Control-Allow-Origin`
      /// naming it (with `Vary: Origin`, `Access-Control-Allow-Credentials: true` and its header
      /// names in `Access-Control-Expose-Headers`), and the server answers such a page's
      /// preflight (`OPTIONS` with `Access-Control-Request-Method`) itself with `204`, allowing
      /// the method and headers asked for. The admin API never gets any of these: a page cannot
      /// drive it, whatever this says.
      ///
      /// Browsers apply no CORS to WebSockets, so the list decides WebSocket upgrades too: one
      /// whose `Origin` is neither the server's own nor listed here gets a 403 that says to list
      /// it. A request without `Origin` (a test, a script, an app) is not affected.
      public var corsOrigins: [String] = []

      #if TLS
        /// HTTPS: `nil` (the default) serves plain HTTP; with a value, every connection (the admin
        /// API's own port too) is TLS with a certificate from a ``LocalCertificateAuthority``, and
        /// ``StubServer/baseURL`` starts with `https://` (see ``TLS``; `doppel serve --tls`).
        /// Needs the package's `TLS` trait.
        public var tls: TLS?
      #endif

      /// The default configuration.
      public init() {}

      /// Throws when a limit or timeout is out of range.
      func validate() throws {
        for (name, value) in [
          ("headerTimeout", headerTimeout), ("bodyTimeout", bodyTimeout), ("idleTimeout", idleTimeout),
          ("webSocketIdleTimeout", webSocketIdleTimeout), ("webSocketPongTimeout", webSocketPongTimeout),
        ] where value <= .zero {
          throw DoppelError.server(
            "StubServer.Configuration.\(name) is \(value), which is not a timeout. Use a positive duration, such as .seconds(30)."
          )
        }
        guard maximumHeadSize >= 1, maximumBodySize >= 0 else {
          throw DoppelError.server(
            "StubServer.Configuration.maximumHeadSize (\(maximumHeadSize)) must be at least 1 and maximumBodySize (\(maximumBodySize)) at least 0."
          )
        }
        guard maximumConnections >= 1 else {
          throw DoppelError.server(
            "StubServer.Configuration.maximumConnections is \(maximumConnections); the server needs at least 1 connection. Use 1 or more (1024 by default)."
          )
        }
      }
    }
  }
#endif
