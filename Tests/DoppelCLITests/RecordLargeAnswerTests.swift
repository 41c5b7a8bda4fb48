#if Server
  import Doppel
  import DoppelServer
  import Foundation
  import Testing

  #if canImport(FoundationNetworking)
    import FoundationNetworking
  #endif

  /// `doppel record` and `doppel serve` stay bounded after decoding (issue 44, point 2): a small
  /// gzip answer that decodes to 32 MiB (twice what Doppel holds in memory) reaches the client whole, the cassette keeps its length
  /// and SHA-256 instead of the body, the recorder's memory stays flat, and Ctrl-C ends either
  /// command within 2 s while an answer is still coming, keeping what completed.
  @Suite(.serialized, .timeLimit(.minutes(2))) struct RecordLargeAnswerTests {
    /// 32 MiB of zeros, decoded.
    static let decodedLength = 32 << 20
    /// Their SHA-256, as `head -c 33554432 /dev/zero | shasum -a 256` prints it.
    static let decodedSHA256 = "83ee47245398adee79bd9c0a8bc57b821e92aba10f5f9ade8a5d1fae4d8c4302"
    /// Their CRC-32 (gzip's trailer), as Python's `zlib.crc32(bytes(33554432))` gives it.
    static let decodedCRC32: UInt32 = 1_497_695_301

    /// gzip of `decodedLength` zeros, about 210 KB: one fixed-Huffman block of a literal zero,
    /// then matches of 258 bytes at distance 1, then literal zeros for the rest.
    static func gzipOfZeros() -> Data {
      var bytes: [UInt8] = [0x1F, 0x8B, 8, 0, 0, 0, 0, 0, 0, 0xFF]
      var buffer: UInt32 = 0
      var count = 0
      func put(_ value: UInt32, _ bits: Int) {
        buffer |= value << UInt32(count)
        count += bits
        while count >= 8 {
          bytes.append(UInt8(truncatingIfNeeded: buffer))
          buffer >>= 8
          count -= 8
        }
      }
      /// A Huffman code, most significant bit first.
      func code(_ value: UInt32, _ bits: Int) {
        for shift in stride(from: bits - 1, through: 0, by: -1) { put((value >> UInt32(shift)) & 1, 1) }
      }
      put(1, 1)  // the last block
      put(1, 2)  // fixed Huffman codes
      code(0x30, 8)  // literal 0
      var left = decodedLength - 1
      while left >= 258 {
        code(0b1100_0101, 8)  // length 258 (symbol 285)
        code(0, 5)  // distance 1
        left -= 258
      }
      for _ in 0..<left { code(0x30, 8) }
      code(0, 7)  // end of block
      if count > 0 { put(0, 8 - count) }
      for value in [decodedCRC32, UInt32(decodedLength)] {
        bytes += (0..<4).map { UInt8(truncatingIfNeeded: value >> (8 * UInt32($0))) }
      }
      return Data(bytes)
    }

    /// Waits for `process` to end, at most `limit`: its exit status and how long it took, or `nil`
    /// when it had not ended by then.
    static func exit(of process: DoppelProcess, within limit: Duration) async -> (status: Int32, took: Duration)? {
      let clock = ContinuousClock()
      let start = clock.now
      return await withTaskGroup(of: Int32?.self) { group in
        group.addTask { await process.waitForExit() }
        group.addTask {
          try? await Task.sleep(for: limit)
          return nil
        }
        let first = await group.next() ?? nil
        group.cancelAll()
        return first.map { ($0, clock.now - start) }
      }
    }

    /// The most memory the process has held (`VmHWM`), in bytes; `nil` where there is no `/proc`.
    static func peakMemory(of process: DoppelProcess) -> Int? {
      guard let status = try? String(contentsOfFile: "/proc/\(process.processID)/status", encoding: .utf8),
        let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }),
        let kibibytes = Int(line.split(separator: " ").dropFirst().first ?? "")
      else { return nil }
      return kibibytes * 1024
    }

    @Test func aGzipAnswerOf32MiBDecodedReachesTheClientAndTheCassetteKeepsItsLengthAndDigest() async throws {
      let compressed = Self.gzipOfZeros()
      #expect(compressed.count < 250_000)
      let upstream = Backend(issueReporter: .ignore)
      upstream.stub(
        .get("/zeros"),
        Response(
          status: 200, headers: ["Content-Encoding": "gzip", "Content-Type": "application/octet-stream"],
          body: compressed))
      upstream.stub(.get("/small"), .text("small"))
      let directory = try temporaryDirectory()
      let cassette = directory.appendingPathComponent("zeros.har")

      try await withStubServer(upstream) { real in
        let recorder = try DoppelProcess([
          "record", "--upstream", real.baseURL.absoluteString, "--out", cassette.path, "--port", "0", "--quiet",
        ])
        let proxy = try await recorder.serverURL()
        let (data, response) = try await realSession.data(from: proxy.appendingPathComponent("zeros"))
        #expect((response as? HTTPURLResponse)?.statusCode == 200)
        #expect(data.count == Self.decodedLength)
        #expect(data == Data(count: Self.decodedLength))
        #expect(try await fetch(proxy.appendingPathComponent("small")).body == "small")
        if let peak = Self.peakMemory(of: recorder) {
          // About 70 MiB: some 40 at rest and the 16 MiB held before spooling. Holding the body
          // (and its base64 in the cassette) took it several times over.
          #expect(peak < 120 << 20, "the recorder peaked at \(peak >> 20) MiB")
        }
        recorder.interrupt()
        #expect(await recorder.waitForExit() == 0)
        #expect(recorder.outputLines.last == "Saved 2 exchanges to \(cassette.path).")
      }

      let size = try FileManager.default.attributesOfItem(atPath: cassette.path)[.size] as? Int ?? -1
      #expect(size < 20_000, "the cassette is \(size) bytes")
      let saved = try Cassette.load(from: cassette)
      let zeros = try #require(saved.entries.first { $0.request.url.hasSuffix("/zeros") })
      #expect(zeros.response.content.size == Self.decodedLength)
      #expect(
        zeros.response.content.text
          == "doppel-redacted: sha256 \(Self.decodedSHA256) length \(Self.decodedLength)")
      #expect(
        zeros.response.content.extra["comment"]
          == .string(
            "body not kept: \(Self.decodedLength) bytes, SHA-256 \(Self.decodedSHA256), more than the 16 MiB a cassette keeps of one body"
          ))
      let small = try #require(saved.entries.first { $0.request.url.hasSuffix("/small") })
      #expect(small.response.content.text == "small")
    }

    @Test func ctrlCEndsTheRecorderWithin2sDuringASlowAnswerAndKeepsWhatCompleted() async throws {
      let upstream = Backend(issueReporter: .ignore)
      let (arrived, arrival) = AsyncStream.makeStream(of: Void.self)
      upstream.stub(.get("/fast"), .text("fast"))
      upstream.stub(.get("/slow")) { _ in
        arrival.yield()
        try await Task.sleep(for: .seconds(60))
        return .text("late")
      }
      let directory = try temporaryDirectory()
      let cassette = directory.appendingPathComponent("slow.har")

      try await withStubServer(upstream) { real in
        let recorder = try DoppelProcess([
          "record", "--upstream", real.baseURL.absoluteString, "--out", cassette.path, "--port", "0", "--quiet",
        ])
        let proxy = try await recorder.serverURL()
        #expect(try await fetch(proxy.appendingPathComponent("fast")).body == "fast")
        let slow = Task { try? await fetch(proxy.appendingPathComponent("slow")) }
        defer { slow.cancel() }
        var arrivals = arrived.makeAsyncIterator()
        _ = await arrivals.next()
        recorder.interrupt()
        let ended = await Self.exit(of: recorder, within: .seconds(10))
        #expect(ended?.status == 0)
        #expect(ended.map { $0.took < .seconds(2) } == true, "the recorder took \(String(describing: ended?.took))")
        #expect(recorder.outputLines.last == "Saved 1 exchange to \(cassette.path).")
      }
      let saved = try Cassette.load(from: cassette)
      #expect(saved.entries.count == 1)
      #expect(saved.entries.first?.request.url.hasSuffix("/fast") == true)
    }

    @Test func ctrlCEndsServeWithin2sDuringADelayedAnswer() async throws {
      let directory = try temporaryDirectory(holding: [
        "doppel.json": #"{"stubs": [{"request": "GET /slow", "response": {"text": "late", "delay": 60}}]}"#
      ])
      let doppel = try DoppelProcess(["serve", directory.path, "--port", "0", "--no-watch"])
      let base = try await doppel.serverURL()
      let slow = Task { try? await fetch(base.appendingPathComponent("slow")) }
      defer { slow.cancel() }
      _ = try await doppel.line(containing: "GET /slow")
      doppel.interrupt()
      let ended = await Self.exit(of: doppel, within: .seconds(10))
      #expect(ended?.status == 0)
      #expect(ended.map { $0.took < .seconds(2) } == true, "doppel serve took \(String(describing: ended?.took))")
      #expect(doppel.outputLines.last == "Stopped.")
    }
  }
#endif
