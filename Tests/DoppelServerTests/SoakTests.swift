#if Server
  import TestSupport
  import Doppel
  import DoppelServer
  import Foundation
  import Testing

  #if canImport(Glibc)
    /// A correct client is served while others attack the server on loopback: clients that
    /// pipeline large downloads (from memory, and a 1.5 GB file fixture) and never read,
    /// WebSocket conversations left idle, and requests that cost the most work or memory one
    /// request may cost.
    ///
    /// One test at a time: the costly requests run on the server's event loops, which every
    /// server in this process shares, so a slot given back while they run could wait past a
    /// read timeout (CI saw both slot tests time out at 10 s beside them).
    @Suite(.serialized) struct SoakTests {
      private static let eightMegabytes = Data(repeating: 0x61, count: 8 << 20)

      /// A sparse 1.5 GB file (it takes no disk), in a folder of its own.
      private static let hugeFile: URL = {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("doppel-soak-\(UUID().uuidString)")
        try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let url = folder.appendingPathComponent("huge.bin")
        _ = FileManager.default.createFile(atPath: url.path, contents: nil)
        if let handle = try? FileHandle(forWritingTo: url) {
          try? handle.truncate(atOffset: 1_500_000_000)
          try? handle.close()
        }
        return url
      }()

      private func backend() -> Backend {
        let backend = quietBackend()
        backend.stub(.get("/ok"), .text("ok"))
        backend.stub(.get("/big"), .data(Self.eightMegabytes))
        backend.stub(.get("/huge"), .file(Self.hugeFile))
        backend.stub(.get("/chat"), .webSocket(onConnect: [], on: []))
        return backend
      }

      @Test func webSocketsCountAgainstTheConnectionLimit() async throws {
        var configuration = StubServer.Configuration()
        configuration.maximumConnections = 3
        try await withStubServer(backend(), configuration: configuration) { server in
          var sockets: [WebSocketClient] = []
          for _ in 0..<3 { sockets.append(try await WebSocketClient.connect(port: server.port, path: "/chat")) }
          defer { for socket in sockets { socket.raw.close() } }
          #expect(server.openConnectionCount == 3)
          // A fourth connection waits: the conversations hold every slot.
          let waiting = try await RawConnection.connect(port: server.port)
          defer { waiting.close() }
          try await waiting.send("GET /ok HTTP/1.1\r\nHost: x\r\n\r\n")
          waiting.setReadTimeout(.milliseconds(300))
          let (nothing, end) = try await waiting.readUntilEnd()
          #expect(nothing.isEmpty)
          #expect(end == .timedOut)
          // One conversation ends: the request is served.
          sockets.removeFirst().raw.close()
          waiting.setReadTimeout(.seconds(30))
          #expect(try await waiting.readResponse()?.body == "ok")
        }
      }

      @Test func anIdleWebSocketGivesItsSlotBack() async throws {
        var configuration = StubServer.Configuration()
        configuration.maximumConnections = 1
        configuration.webSocketIdleTimeout = .milliseconds(300)
        configuration.webSocketPongTimeout = .milliseconds(300)
        try await withStubServer(backend(), configuration: configuration) { server in
          let socket = try await WebSocketClient.connect(port: server.port, path: "/chat")
          defer { socket.raw.close() }
          // Waits for the only slot, which the conversation holds until it idles out.
          let waiting = try await RawConnection.connect(port: server.port, timeout: 30)
          defer { waiting.close() }
          try await waiting.send("GET /ok HTTP/1.1\r\nHost: x\r\n\r\n")
          #expect(try await waiting.readResponse()?.body == "ok")
          // The conversation answered no ping: a close frame with 1001, and the connection closed.
          var frames: [WebSocketClient.Frame] = []
          while let frame = try await socket.readFrame() { frames.append(frame) }
          #expect(frames == [.other(9), .close(1001)])
          #expect(server.openConnectionCount <= 1)
        }
      }

      @Test func aCorrectClientIsServedThroughoutAnAttack() async throws {
        let backend = backend()
        var configuration = StubServer.Configuration()
        configuration.maximumConnections = 9
        configuration.webSocketIdleTimeout = .milliseconds(500)
        configuration.webSocketPongTimeout = .milliseconds(500)
        try await withStubServer(backend, configuration: configuration) { server in
          // Three clients pipeline ten 8 MiB downloads each and never read; a fourth pipelines ten
          // downloads of the 1.5 GB file fixture.
          var attackers: [RawConnection] = []
          defer { for attacker in attackers { attacker.close() } }
          for path in ["/big", "/big", "/big", "/huge"] {
            let attacker = try await RawConnection.connect(port: server.port)
            try await attacker.send(String(repeating: "GET \(path) HTTP/1.1\r\nHost: x\r\n\r\n", count: 10))
            attackers.append(attacker)
          }
          // Four idle WebSocket conversations.
          for _ in 0..<4 {
            attackers.append(try await WebSocketClient.connect(port: server.port, path: "/chat").raw)
          }
          // The ninth slot serves a correct client, again and again.
          let client = try await RawConnection.connect(port: server.port)
          defer { client.close() }
          for _ in 0..<5 {
            try await client.send("GET /ok HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(try await client.readResponse()?.body == "ok")
          }
          // A tenth connection is served once the idle conversations give their slots back.
          let another = try await RawConnection.connect(port: server.port, timeout: 30)
          defer { another.close() }
          try await another.send("GET /ok HTTP/1.1\r\nHost: x\r\n\r\n")
          #expect(try await another.readResponse()?.body == "ok")
          // The pipeliners got what their sockets' buffers hold, not their thirty answers.
          let downloads = backend.requests.filter { $0.url.path == "/big" }.count
          #expect(downloads < 30)
          // The file is sent as it is read: its first answer is still going out, and nothing
          // after it was answered.
          #expect(backend.requests.filter { $0.url.path == "/huge" }.count == 1)
          #expect(server.openConnectionCount <= 9)
        }
      }

      /// A request that costs the server the most work or memory one request may cost, and what
      /// the server answers it.
      enum CostlyRequest: String, CaseIterable, CustomTestStringConvertible, Sendable {
        /// A journal filter whose glob backtracks on every entry of a full journal.
        case journalFilter
        /// A path that makes 100 stubs' regular expressions backtrack.
        case backtrackingStubs
        /// An 8 MiB body echoed by a template that repeats `{{body}}` 1,000 times.
        case templateBlowUp
        /// A 15 MiB body that no stub matches.
        case largeUnmatchedPost

        var testDescription: String { rawValue }

        /// The request, made different each time by `round` (a pattern remembers the text it last
        /// gave up on, and answers it again for free).
        func bytes(round: Int) -> [UInt8] {
          switch self {
          case .journalFilter:
            let glob = "/" + String(repeating: "a*", count: 12 + round) + "b"
            return Array("GET /__doppel/requests?path=\(glob) HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".utf8)
          case .backtrackingStubs:
            let path = "/z/" + String(repeating: "a", count: 40 + round) + "!"
            return Array("GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".utf8)
          case .templateBlowUp:
            return Self.post("/echo", count: 8 << 20)
          case .largeUnmatchedPost:
            return Self.post("/nowhere/\(round)", count: 15 << 20)
          }
        }

        /// The status line the server answers it with, and what its body says.
        var answer: String {
          let status =
            switch self {
            case .journalFilter: "HTTP/1.1 400 Bad Request"
            case .backtrackingStubs, .largeUnmatchedPost: "HTTP/1.1 404 Not Found"
            case .templateBlowUp: "HTTP/1.1 500 Internal Server Error"
            }
          return status + " " + says
        }

        /// What the answer's body says: the limit this request reaches, or that nothing matched.
        var says: String {
          switch self {
          case .journalFilter: "spent the step budget of one request"
          case .backtrackingStubs: "the searches for this request spent their budget"
          case .templateBlowUp: "larger than 16 MiB, the cap on a generated answer"
          case .largeUnmatchedPost: "No stub matched POST"
          }
        }

        private static func post(_ path: String, count: Int) -> [UInt8] {
          Array("POST \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: \(count)\r\n\r\n".utf8)
            + [UInt8](repeating: UInt8(ascii: "a"), count: count)
        }
      }

      /// While two clients send one kind of costly request again and again, a correct client is
      /// answered each time it asks: each costly request is bounded (a step budget per request, a
      /// cap on a templated answer, a journal limit in bytes), so none holds the server.
      ///
      /// One kind at a time: the costly requests keep both threads of a two-core machine busy, and
      /// the other suites' servers share this process's threads.
      @Test(.serialized, .timeLimit(.minutes(2)), arguments: CostlyRequest.allCases)
      func aCorrectClientIsServedWhileCostlyRequestsRun(_ costly: CostlyRequest) async throws {
        let backend = quietBackend()
        backend.stub(.get("/ok"), .text("ok"))
        for _ in 0..<100 { backend.stub(.path(regex: "^/z/(a+)+$"), .ok) }
        backend.stub(.post("/echo"), Response.text(String(repeating: "{{body}}", count: 1000)).templated())
        // A full journal of paths the glob backtracks on, each its own.
        for n in 0..<600 {
          let url = URL(string: "https://x/" + String(repeating: "a", count: 40 + n))!
          _ = try? await backend.respond(to: URLRequest(url: url))
        }
        try await withStubServer(backend) { server in
          let done = Flag()
          let rounds = 2
          // Each attacker says when its first costly request is sent (or when it gives up), so that
          // the correct client asks while the attack is under way, however the tasks are scheduled.
          let (started, starting) = AsyncStream.makeStream(of: Void.self)
          try await withThrowingTaskGroup(of: [String].self) { group in
            for attacker in 0..<2 {
              group.addTask {
                var announced = false
                defer { if !announced { starting.yield() } }
                let connection = try await RawConnection.connect(port: server.port, timeout: 60)
                defer { connection.close() }
                var answers: [String] = []
                for round in 0..<rounds where round == 0 || !done.isSet {
                  try await connection.send(costly.bytes(round: attacker * rounds + round))
                  if !announced {
                    announced = true
                    starting.yield()
                  }
                  guard let answer = try await connection.readResponse() else { break }
                  let status = answer.head.components(separatedBy: "\r\n")[0]
                  answers.append(status + " " + (answer.body.contains(costly.says) ? costly.says : answer.body))
                }
                return answers
              }
            }
            // The correct client: five requests, each answered while the costly ones run. (Its
            // read timeout leaves room for ThreadSanitizer, which slows the costly requests' work
            // tenfold; unbounded, the journal filter alone held the server for 45 to 94 seconds.)
            let client = try await RawConnection.connect(port: server.port, timeout: 30)
            defer { client.close() }
            var attackers = started.makeAsyncIterator()
            for _ in 0..<2 { _ = await attackers.next() }
            for _ in 0..<5 {
              try await client.send("GET /ok HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
              #expect(try await client.readResponse()?.body == "ok")
            }
            done.set()
            // Every costly request got its answer; none was dropped.
            for try await answers in group {
              #expect(!answers.isEmpty)
              #expect(answers == Array(repeating: costly.answer, count: answers.count))
            }
          }
        }
      }
    }
  #endif
#endif
