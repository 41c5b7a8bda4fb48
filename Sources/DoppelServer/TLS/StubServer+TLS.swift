#if TLS
  import Doppel
  import Foundation
  import NIOSSL

  extension StubServer {
    /// HTTPS for the stub server, with a certificate signed by a ``LocalCertificateAuthority``.
    ///
    /// Each time the server starts, the authority signs a new server certificate for
    /// `localhost`, `127.0.0.1`, `::1` and ``additionalNames``, kept in memory only (and one
    /// with the DNS names alone, for clients that send a name: see ``LocalCertificateAuthority``). Clients that
    /// trust the authority (`doppel trust` prints how on macOS, in the iOS Simulator and in an
    /// Android emulator) accept it, App Transport Security included. The server speaks TLS 1.2 and
    /// 1.3 and HTTP/1.1 (announced through ALPN); ``StubServer/baseURL`` and
    /// ``StubServer/adminURL`` start with `https://`.
    ///
    /// ```swift
    /// var configuration = StubServer.Configuration()
    /// configuration.tls = try StubServer.TLS(authority: LocalCertificateAuthority(folder: folder))
    /// try await withStubServer(backend, configuration: configuration) { server in
    ///   // server.baseURL is https://127.0.0.1:<port>
    /// }
    /// ```
    ///
    /// Needs the package's `TLS` trait, which brings SwiftNIO SSL (BoringSSL), swift-certificates
    /// and swift-crypto.
    public struct TLS: Sendable {
      /// The authority that signs the server's certificate.
      public var authority: LocalCertificateAuthority
      /// Names the certificate is valid for besides `localhost`, `127.0.0.1` and `::1`, such as
      /// `10.0.2.2` for an Android emulator: DNS names or IP addresses the authority may sign
      /// for (see ``LocalCertificateAuthority/permits(_:)-method``).
      public var additionalNames: [String]

      /// HTTPS with a certificate from `authority` for the default names and `additionalNames`.
      public init(authority: LocalCertificateAuthority, additionalNames: [String] = []) {
        self.authority = authority
        self.additionalNames = additionalNames
      }

      /// A new server certificate, as a context for NIO's TLS handler.
      ///
      /// Two certificates, in fact: a client that sends a name (TLS's server name indication, as
      /// every client connecting to `localhost` does) gets one with the DNS names only, and a
      /// client that connects to an IP address (which sends none) gets one with every name. The
      /// authority constrains IP addresses, which BoringSSL's verifier (SwiftNIO SSL,
      /// AsyncHTTPClient) does not implement: it refuses any certificate naming an IP address under
      /// it, so it accepts only the first kind.
      func makeContext() throws -> NIOSSLContext {
        let now = Date()
        let issued = try authority.makeServerCertificate(for: additionalNames, now: now, dnsNamesOnly: false)
        let named = try authority.makeServerCertificate(for: additionalNames, now: now, dnsNamesOnly: true)
        do {
          let certificate = try NIOSSLCertificate(bytes: Array(issued.certificatePEM.utf8), format: .pem)
          let key = try NIOSSLPrivateKey(bytes: Array(issued.privateKeyPEM.utf8), format: .pem)
          var forNames = NIOSSLContextConfigurationOverride()
          forNames.certificateChain = [
            .certificate(try NIOSSLCertificate(bytes: Array(named.certificatePEM.utf8), format: .pem))
          ]
          forNames.privateKey = .privateKey(try NIOSSLPrivateKey(bytes: Array(named.privateKeyPEM.utf8), format: .pem))
          var configuration = TLSConfiguration.makeServerConfiguration(
            certificateChain: [.certificate(certificate)], privateKey: .privateKey(key))
          // App Transport Security asks for TLS 1.2 at least.
          configuration.minimumTLSVersion = .tlsv12
          configuration.applicationProtocols = ["http/1.1"]
          configuration.sslContextCallback = { [forNames] values, promise in
            promise.succeed(values.serverHostname == nil ? .noChanges : forNames)
          }
          return try NIOSSLContext(configuration: configuration)
        } catch {
          throw DoppelError.server("Cannot set up HTTPS with the local certificate authority's certificate: \(error).")
        }
      }
    }
  }
#elseif Server
  extension StubServer {
    /// HTTPS for the stub server: needs the package's `TLS` trait.
    @available(
      *, unavailable,
      message:
        "HTTPS needs the TLS trait: .package(url: …, from: \"0.2.0\", traits: [\"TLS\"]), or swift build --traits TLS"
    )
    public struct TLS: Sendable {}
  }
#endif
