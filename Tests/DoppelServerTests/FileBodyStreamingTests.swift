#if Server && canImport(Glibc)
  import Doppel
  import DoppelServer
  import Foundation
  import TestSupport
  import Testing

  /// Large file bodies, sent by the stub server from disk a piece at a time as the client reads
  /// them, never read whole: so a file beyond what may be held in memory
  /// (``Response/fileBodySizeLimit``) is served, and a file that shrinks mid-answer cuts the body
  /// short rather than stalling or crashing the server.
  @Suite struct FileBodyStreamingTests {
    /// A sparse file of `size` bytes (it takes no disk) ending with `END`, in a folder of its own.
    private func largeFile(size: Int) throws -> URL {
      let folder = FileManager.default.temporaryDirectory.appendingPathComponent("doppel-stream-\(UUID().uuidString)")
      try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
      let url = folder.appendingPathComponent("large.bin")
      #expect(FileManager.default.createFile(atPath: url.path, contents: nil))
      let handle = try FileHandle(forWritingTo: url)
      try handle.seek(toOffset: UInt64(size - 3))
      try handle.write(contentsOf: Data("END".utf8))
      try handle.close()
      return url
    }

    private func removeFolder(of url: URL) {
      try? FileManager.default.removeItem(at: url.deletingLastPathComponent())
    }

    @Test func aFileBeyondTheInMemoryLimitIsSentWhole() async throws {
      let size = Response.fileBodySizeLimit + 3
      let file = try largeFile(size: size)
      defer { removeFolder(of: file) }
      let backend = quietBackend()
      backend.stub(.get("/large.bin"), .file(file))
      try await withStubServer(backend) { server in
        let connection = try await RawConnection.connect(port: server.port)
        try await connection.send("GET /large.bin HTTP/1.1\r\nHost: localhost\r\n\r\n")
        let head = String(decoding: try #require(await connection.readHead()), as: UTF8.self)
        #expect(head.hasPrefix("HTTP/1.1 200 OK\r\n"))
        #expect(head.contains("Content-Length: \(size)\r\n"))
        #expect(head.contains("Content-Type: application/octet-stream\r\n"))
        let start = try #require(await connection.read(exactly: 1024))
        #expect(start.allSatisfy { $0 == 0 })
        #expect(try await connection.skip(size - 1024 - 3))
        #expect(try await connection.read(exactly: 3) == Array("END".utf8))
      }
      // The in-memory doors read a body whole, and refuse this one, saying why.
      let error = try await #require(throws: DoppelError.self) {
        try await backend.respond(to: URLRequest(url: URL(string: "http://localhost/large.bin")!))
      }
      #expect(error.kind == .file)
      #expect(
        error.message
          == "Could not read the response body file \(file.path): it is \(size) bytes, more than the 64 MiB a file body may be (Response.fileBodySizeLimit), since it is read whole and kept in memory. Point the stub at a smaller file, or build the body in a handler closure."
      )
    }

    @Test func headAnnouncesTheFileWithoutSendingIt() async throws {
      let size = 2 * 1024 * 1024
      let file = try largeFile(size: size)
      defer { removeFolder(of: file) }
      let backend = quietBackend()
      backend.stub(.get("/large.bin"), .file(file))
      backend.stub(.get("/next"), .text("next"))
      try await withStubServer(backend) { server in
        let connection = try await RawConnection.connect(port: server.port)
        // Pipelined: the second answer's head must follow the first's at once, with no body between.
        try await connection.send(
          "HEAD /large.bin HTTP/1.1\r\nHost: localhost\r\n\r\nGET /next HTTP/1.1\r\nHost: localhost\r\n\r\n")
        let head = String(decoding: try #require(await connection.readHead()), as: UTF8.self)
        #expect(head.contains("Content-Length: \(size)\r\n"))
        let next = try #require(await connection.readResponse())
        #expect(next.head.hasPrefix("HTTP/1.1 200 OK\r\n"))
        #expect(next.body == "next")
      }
    }

    @Test func aFileThatShrinksWhileSentCutsTheBodyShort() async throws {
      let size = 64 * 1024 * 1024
      let file = try largeFile(size: size)
      defer { removeFolder(of: file) }
      let backend = quietBackend()
      backend.stub(.get("/large.bin"), .file(file))
      try await withStubServer(backend) { server in
        let connection = try await RawConnection.connect(port: server.port)
        try await connection.send("GET /large.bin HTTP/1.1\r\nHost: localhost\r\n\r\n")
        let head = String(decoding: try #require(await connection.readHead()), as: UTF8.self)
        #expect(head.contains("Content-Length: \(size)\r\n"))
        // The client has read 1 MiB; the server cannot have read more than what the sockets hold
        // beyond that (a few MiB) when the file is emptied.
        #expect(try await connection.skip(1024 * 1024))
        let handle = try FileHandle(forWritingTo: file)
        try handle.truncate(atOffset: 0)
        try handle.close()
        let rest = try await connection.readUntilEnd()
        #expect(rest.end == .closed)
        #expect(1024 * 1024 + rest.bytes.count < size)
        // The server goes on serving.
        backend.stub(.get("/after"), .text("still here"))
        let (body, response) = try await fetch(server.url("/after"))
        #expect(response.statusCode == 200)
        #expect(body == "still here")
      }
    }
  }
#endif
