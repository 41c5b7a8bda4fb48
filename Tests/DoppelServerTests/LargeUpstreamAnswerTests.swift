#if Server
  import TestSupport
  import Doppel
  import DoppelServer
  import Foundation
  import Testing

  #if canImport(FoundationNetworking)
    import FoundationNetworking
  #endif

  /// An upstream's answer larger than the 16 MiB Doppel holds in memory (issue 44, point 2):
  /// through a proxying stub that records, the client gets every byte (sent from disk), and the
  /// journal and the cassette keep its length and SHA-256 instead of the body; an in-process
  /// client of the passthrough policy gets it too.
  // Three minutes: a bound, not a measure. Under ThreadSanitizer on two cores shared with a build,
  // each 20 MiB test took 90 s; alone it takes a few seconds.
  @Suite(.timeLimit(.minutes(3))) struct LargeUpstreamAnswerTests {
    /// 20 MiB of zeros, and their SHA-256 (`head -c 20971520 /dev/zero | shasum -a 256`).
    static let length = 20 << 20
    static let sha256 = "cd52d81e25f372e6fa4db2c0dfceb59862c1969cab17096da352b34950c973cc"

    @Test func aProxyingStubSendsALargeAnswerFromDiskAndRecordsItsLengthAndDigest() async throws {
      let upstream = quietBackend()
      upstream.stub(
        .get("/large"),
        Response(status: 200, headers: ["Content-Type": "application/octet-stream"], body: Data(count: Self.length)))
      let folder = FileManager.default.temporaryDirectory.appendingPathComponent("doppel-large-\(UUID().uuidString)")
      defer { try? FileManager.default.removeItem(at: folder) }
      let cassette = folder.appendingPathComponent("large.har")
      try await withStubServer(upstream) { real in
        let backend = quietBackend()
        backend.stub(.get("/large"), .proxy(to: real.baseURL, recordingTo: cassette))
        try await withStubServer(backend) { server in
          let session = URLSession(configuration: .ephemeral)
          defer { session.invalidateAndCancel() }
          let (data, response) = try await session.data(from: server.url("/large"))
          #expect((response as? HTTPURLResponse)?.statusCode == 200)
          #expect((response as? HTTPURLResponse)?.value(forHTTPHeaderField: "Content-Length") == "\(Self.length)")
          #expect(data.count == Self.length)
          #expect(data == Data(count: Self.length))
          let entry = try #require(backend.journal.first)
          #expect(entry.omittedResponseBody?.length == Self.length)
          #expect(entry.omittedResponseBody?.sha256 == Self.sha256)
          #expect(try entry.response?.bodyData().isEmpty == true)
        }
      }
      let size = try FileManager.default.attributesOfItem(atPath: cassette.path)[.size] as? Int ?? -1
      #expect(size < 10_000, "the cassette is \(size) bytes")
      let recorded = try #require(try Cassette.load(from: cassette).entries.first)
      #expect(recorded.response.content.text == "doppel-redacted: sha256 \(Self.sha256) length \(Self.length)")
      #expect(recorded.response.content.size == Self.length)
    }

    @Test func aPassthroughAnswerOver16MiBReachesAnInProcessClient() async throws {
      let upstream = quietBackend()
      upstream.stub(.get("/large"), Response(status: 200, body: Data(count: Self.length)))
      try await withStubServer(upstream) { real in
        let backend = Backend(unmatched: .passthrough, issueReporter: .ignore)
        let (data, response) = try await backend.session.data(from: real.url("/large"))
        #expect((response as? HTTPURLResponse)?.statusCode == 200)
        #expect(data.count == Self.length)
        #expect(backend.journal.first?.omittedResponseBody?.sha256 == Self.sha256)
      }
    }
  }
#endif
