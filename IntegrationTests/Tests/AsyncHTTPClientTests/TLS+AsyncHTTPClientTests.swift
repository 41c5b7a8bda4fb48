import AsyncHTTPClient
import Doppel
import DoppelServer
import Foundation
import NIOCore
import NIOSSL
import TestSupport
import Testing

/// The stub server over HTTPS (`StubServer.Configuration.tls`), read by AsyncHTTPClient: trusted
/// when the client is given the local certificate authority, refused when it is not. Each test
/// keeps its authority in a temporary folder of its own.
@Suite(.timeLimit(.minutes(1))) struct AsyncHTTPClientTLSTests {
  /// Runs `body` with a server answering with `backend` over HTTPS and a client that trusts the
  /// server's authority (or only the system's roots when `trusted` is false); shuts both down and
  /// removes the authority's folder whatever happens.
  private func withHTTPS(
    _ backend: Backend, trusted: Bool, _ body: (StubServer, HTTPClient) async throws -> Void
  ) async throws {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("doppel-ca-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: folder) }
    let authority = try LocalCertificateAuthority(folder: folder)
    var configuration = StubServer.Configuration()
    configuration.tls = StubServer.TLS(authority: authority)
    var tls = TLSConfiguration.makeClientConfiguration()
    if trusted {
      tls.trustRoots = .certificates([try NIOSSLCertificate(bytes: Array(authority.certificatePEM.utf8), format: .pem)])
    }
    var clientConfiguration = HTTPClient.Configuration()
    clientConfiguration.tlsConfiguration = tls
    let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: clientConfiguration)
    do {
      try await withStubServer(backend, configuration: configuration) { server in try await body(server, client) }
    } catch {
      try await client.shutdown()
      throw error
    }
    try await client.shutdown()
  }

  @Test func aClientGivenTheAuthorityTrustsTheServer() async throws {
    let backend = quietBackend()
    backend.stub(.get("/breeds.json"), .json(["Abyssinian"]))
    try await withHTTPS(backend, trusted: true) { server, client in
      #expect(server.baseURL.scheme == "https")
      #expect(server.adminURL?.absoluteString == "https://127.0.0.1:\(server.port)/__doppel/")
      let response = try await client.execute(
        HTTPClientRequest(url: "https://localhost:\(server.port)/breeds.json"), timeout: .seconds(10))
      #expect(response.status == .ok)
      #expect(response.version == .http1_1)
      let body = try await response.body.collect(upTo: 1 << 20)
      #expect(String(buffer: body) == #"["Abyssinian"]"#)
      // Matched as sent: https, the scheme the client used.
      #expect(backend.lastRequest?.url.scheme == "https")
      // BoringSSL does not implement IP address name constraints, which the authority carries: it
      // refuses the certificate a client that connects to an IP address (and so sends no SNI)
      // gets. The README says to connect such clients to localhost.
      await #expect {
        _ = try await client.execute(
          HTTPClientRequest(url: "https://127.0.0.1:\(server.port)/breeds.json"), timeout: .seconds(2))
      } throws: { error in
        "\(error)".contains("CERTIFICATE_VERIFY_FAILED")
      }
    }
  }

  @Test func aClientWithoutTheAuthorityRefusesTheHandshake() async throws {
    let backend = quietBackend()
    backend.stub(.get("/breeds.json"), .json(["Abyssinian"]))
    try await withHTTPS(backend, trusted: false) { server, client in
      // AsyncHTTPClient tries again until the deadline, then reports the last connection's error.
      await #expect {
        _ = try await client.execute(
          HTTPClientRequest(url: server.url("/breeds.json").absoluteString), timeout: .seconds(2))
      } throws: { error in
        "\(error)".contains("CERTIFICATE_VERIFY_FAILED")
      }
      #expect(backend.journal.isEmpty)
    }
  }
}
