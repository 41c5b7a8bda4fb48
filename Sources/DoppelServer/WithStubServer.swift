#if Server
  import Doppel

  /// Runs `body` with a stub server answering with `backend` over real HTTP, then shuts the server
  /// down, whether `body` returns or throws.
  ///
  /// ```swift
  /// let backend = Backend()
  /// backend.stub(.get("/breeds.json"), .json(breeds))
  /// try await withStubServer(backend) { server in
  ///   let url = server.baseURL.appendingPathComponent("breeds.json")
  ///   let (data, _) = try await URLSession(configuration: .ephemeral).data(from: url)
  /// }
  /// ```
  ///
  /// - Parameters:
  ///   - backend: the stubs and journal the server answers with.
  ///   - host: the address to listen on: `127.0.0.1` by default. An address that is not loopback
  ///     needs ``StubServer/Configuration/allowsNonLoopback``.
  ///   - port: the port; 0 (the default) lets the system choose a free one.
  ///   - configuration: limits, the origin requests are matched as, logging.
  ///   - isolation: the actor `body` runs on: the caller's, by default.
  ///   - body: the work to do with the running server; ``StubServer/baseURL`` is where to send
  ///     requests.
  /// - Returns: what `body` returns.
  /// - Throws: `DoppelError` when the server cannot start, or what `body` throws.
  @discardableResult
  public func withStubServer<Result>(
    _ backend: Backend, host: String = "127.0.0.1", port: Int = 0,
    configuration: StubServer.Configuration = StubServer.Configuration(),
    isolation: isolated (any Actor)? = #isolation,
    _ body: (StubServer) async throws -> Result
  ) async throws -> Result {
    let server = try await StubServer.start(serving: backend, host: host, port: port, configuration: configuration)
    let result: Result
    do {
      result = try await body(server)
    } catch {
      await server.shutdown()
      throw error
    }
    await server.shutdown()
    return result
  }
#endif
