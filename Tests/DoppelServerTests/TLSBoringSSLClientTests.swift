#if TLS
  import Doppel
  import DoppelServer
  import Foundation
  import NIOCore
  import NIOPosix
  import NIOSSL
  import NIOTLS
  import Testing
  import TestSupport

  /// The stub server's HTTPS as BoringSSL (SwiftNIO SSL, AsyncHTTPClient) sees it, under an
  /// authority that constrains IP addresses, which BoringSSL does not implement: a client that
  /// sends a name (SNI) gets a certificate with DNS names only and accepts it; one that connects
  /// to an IP address is refused, as the README says.
  @Suite(.timeLimit(.minutes(1))) struct TLSBoringSSLClientTests {
    /// Completes with the handshake's outcome.
    final class HandshakeWatcher: ChannelInboundHandler, Sendable {
      typealias InboundIn = ByteBuffer
      let promise: EventLoopPromise<Void>
      init(_ promise: EventLoopPromise<Void>) { self.promise = promise }

      func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if let event = event as? TLSUserEvent, case .handshakeCompleted = event { promise.succeed(()) }
        context.fireUserInboundEventTriggered(event)
      }

      func errorCaught(context: ChannelHandlerContext, error: any Error) {
        promise.fail(error)
        context.close(promise: nil)
      }

      func channelInactive(context: ChannelHandlerContext) {
        promise.fail(ChannelError.ioOnClosedChannel)
      }
    }

    /// A TLS handshake with the server on `port` by a SwiftNIO SSL client that trusts `authority`,
    /// sending `name` as SNI (and checking it), or connecting by IP address when it is `nil`.
    private func handshake(port: Int, name: String?, authority: String) async throws -> Result<Void, any Error> {
      var configuration = TLSConfiguration.makeClientConfiguration()
      configuration.trustRoots = .certificates([try NIOSSLCertificate(bytes: Array(authority.utf8), format: .pem)])
      let context = try NIOSSLContext(configuration: configuration)
      let eventLoop = MultiThreadedEventLoopGroup.singleton.next()
      let promise = eventLoop.makePromise(of: Void.self)
      let channel = try await ClientBootstrap(group: eventLoop)
        .channelInitializer { channel in
          channel.eventLoop.makeCompletedFuture {
            try channel.pipeline.syncOperations.addHandler(NIOSSLClientHandler(context: context, serverHostname: name))
            try channel.pipeline.syncOperations.addHandler(HandshakeWatcher(promise))
          }
        }
        .connect(host: "127.0.0.1", port: port).get()
      defer { channel.close(promise: nil) }
      do {
        try await promise.futureResult.get()
        return .success(())
      } catch {
        return .failure(error)
      }
    }

    @Test func aClientThatSendsANameIsAcceptedAndOneByAddressIsRefused() async throws {
      let folder = FileManager.default.temporaryDirectory.appendingPathComponent("doppel-ca-\(UUID().uuidString)")
      defer { try? FileManager.default.removeItem(at: folder) }
      let authority = try LocalCertificateAuthority(folder: folder)
      var configuration = StubServer.Configuration()
      configuration.tls = StubServer.TLS(authority: authority)
      try await withStubServer(quietBackend(), configuration: configuration) { server in
        let named = try await handshake(port: server.port, name: "localhost", authority: authority.certificatePEM)
        #expect(throws: Never.self) { try named.get() }
        let byAddress = try await handshake(port: server.port, name: nil, authority: authority.certificatePEM)
        // BoringSSL refuses the chain: X509_V_ERR_UNSUPPORTED_CONSTRAINT_TYPE.
        #expect { try byAddress.get() } throws: { "\($0)".contains("CERTIFICATE_VERIFY_FAILED") }
      }
    }
  }
#endif
