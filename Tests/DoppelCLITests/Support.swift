#if Server
  import Doppel
  import Foundation
  import Testing

  #if canImport(FoundationNetworking)
    import FoundationNetworking
  #endif

  /// The `doppel` executable built next to the test bundle.
  func doppelExecutable() throws -> URL {
    var directories = [Bundle.main.bundleURL, Bundle.main.bundleURL.deletingLastPathComponent()]
    if let arguments = CommandLine.arguments.first {
      directories.append(URL(fileURLWithPath: arguments).deletingLastPathComponent())
    }
    if let executable = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") {
      directories.append(URL(fileURLWithPath: executable).deletingLastPathComponent())
    }
    for directory in directories {
      let candidate = directory.appendingPathComponent("doppel")
      if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
    }
    throw DoppelError(
      "The doppel executable is not next to the tests (looked in \(directories.map(\.path))). Run swift build first.")
  }

  /// The package's root directory.
  let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent()

  /// A fresh temporary directory.
  func temporaryDirectory() throws -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("doppel-cli-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
  }

  /// A URLSession on the real HTTP stack.
  let realSession = URLSession(configuration: .ephemeral)

  /// Sends a GET (or another method) and returns the status and body.
  func fetch(
    _ url: URL, method: String = "GET", headers: [String: String] = [:]
  ) async throws -> (status: Int, body: String) {
    var request = URLRequest(url: url)
    request.httpMethod = method
    for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
    let (data, response) = try await realSession.data(for: request)
    return ((response as? HTTPURLResponse)?.statusCode ?? 0, String(decoding: data, as: UTF8.self))
  }

  /// A running `doppel` with its output read line by line.
  final class DoppelProcess: Sendable {
    private let process = Process()
    /// Standard output, line by line.
    let output = Lines()
    /// Standard error, line by line.
    let errors = Lines()
    /// Held while a process launches (see `init`).
    private static let launching = Locked(())
    private let exit = Locked<(status: Int32?, waiters: [CheckedContinuation<Int32, Never>])>((nil, []))

    /// Starts `doppel arguments…`, in `directory` when given, with `environment` added to the
    /// test's own.
    init(_ arguments: [String], directory: URL? = nil, environment: [String: String] = [:]) throws {
      process.executableURL = try doppelExecutable()
      process.arguments = arguments
      if let directory { process.currentDirectoryURL = directory }
      if !environment.isEmpty {
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { _, added in added }
      }
      let standardOutput = Pipe()
      let standardError = Pipe()
      process.standardOutput = standardOutput
      process.standardError = standardError
      process.terminationHandler = { [exit] process in
        let waiters = exit.withLock { state in
          state.status = process.terminationStatus
          defer { state.waiters = [] }
          return state.waiters
        }
        for waiter in waiters { waiter.resume(returning: process.terminationStatus) }
      }
      // One launch at a time: Foundation's `Process.run()` on Linux crashed in a `memcpy` when the
      // CLI tests launched several tools at once (a bad pointer in its own launch code).
      try Self.launching.withLock { _ in try process.run() }
      // A thread of its own reads each pipe (blocking reads, no dispatch sources: those sometimes
      // miss the end of a pipe on Linux when many processes run at once).
      for (pipe, lines) in [(standardOutput, output), (standardError, errors)] {
        let handle = pipe.fileHandleForReading
        Thread.detachNewThread {
          // read(2) on the descriptor: what has arrived, as `availableData` gives, but an error
          // ends the output instead of trapping.
          var buffer = [UInt8](repeating: 0, count: 65_536)
          while true {
            let count = buffer.withUnsafeMutableBytes { read(handle.fileDescriptor, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { break }
            lines.append(Data(buffer[0..<count]))
          }
          lines.finish()
        }
      }
      // A test waiting for a line that never comes fails instead of hanging: the process is
      // stopped after a minute, which ends its output.
      let pid = process.processIdentifier
      Task { [exit] in
        try? await Task.sleep(for: .seconds(60))
        if exit.withLock({ $0.status == nil }) { kill(pid, SIGKILL) }
      }
    }

    deinit {
      // A test that failed early must not leave its server running.
      if process.isRunning { kill(process.processIdentifier, SIGKILL) }
    }

    /// Waits for a line of standard output containing `text`.
    func line(containing text: String) async throws -> String {
      try await output.first { $0.contains(text) }
    }

    /// Every line of standard output so far.
    var outputLines: [String] { output.all }
    /// Every line of standard error so far.
    var errorLines: [String] { errors.all }

    /// The URL the server printed on its first line.
    func serverURL() async throws -> URL {
      let line = try await output.first { _ in true }
      guard let text = line.split(separator: " ").last, let url = URL(string: String(text)), text.hasPrefix("http")
      else {
        throw DoppelError("The first line does not end with a URL: \(line)")
      }
      return url
    }

    /// Sends SIGINT (Ctrl-C).
    func interrupt() { process.interrupt() }

    /// Waits for the process to end; returns its exit status.
    func waitForExit() async -> Int32 {
      await withCheckedContinuation { continuation in
        let status = exit.withLock { state -> Int32? in
          if state.status == nil { state.waiters.append(continuation) }
          return state.status
        }
        if let status { continuation.resume(returning: status) }
      }
    }

    /// Runs `doppel arguments…` to the end: status, standard output and standard error.
    static func run(_ arguments: [String], directory: URL? = nil, environment: [String: String] = [:]) async throws
      -> (status: Int32, output: String, error: String)
    {
      let process = try DoppelProcess(arguments, directory: directory, environment: environment)
      let status = await process.waitForExit()
      await process.output.waitForEnd()
      await process.errors.waitForEnd()
      return (status, process.outputLines.joined(separator: "\n"), process.errorLines.joined(separator: "\n"))
    }
  }

  /// Lines arriving from a pipe, and tasks waiting for one.
  final class Lines: Sendable {
    private struct State {
      var pending = Data()
      var lines: [String] = []
      var finished = false
      var waiters: [(predicate: @Sendable (String) -> Bool, continuation: CheckedContinuation<String, any Error>)] = []
      var endWaiters: [CheckedContinuation<Void, Never>] = []
    }

    private let state = Locked(State())

    var all: [String] { state.withLock { $0.lines } }

    func append(_ data: Data) {
      let resumed = state.withLock { state -> [(CheckedContinuation<String, any Error>, String)] in
        state.pending.append(data)
        var resumed: [(CheckedContinuation<String, any Error>, String)] = []
        while let newline = state.pending.firstIndex(of: 10) {
          let line = String(decoding: state.pending[state.pending.startIndex..<newline], as: UTF8.self)
          state.pending = Data(state.pending[(newline + 1)...])
          state.lines.append(line)
          state.waiters.removeAll { waiter in
            guard waiter.predicate(line) else { return false }
            resumed.append((waiter.continuation, line))
            return true
          }
        }
        return resumed
      }
      for (continuation, line) in resumed { continuation.resume(returning: line) }
    }

    func finish() {
      let (waiters, endWaiters) = state.withLock { state in
        state.finished = true
        defer {
          state.waiters = []
          state.endWaiters = []
        }
        return (state.waiters.map(\.continuation), state.endWaiters)
      }
      for waiter in waiters { waiter.resume(throwing: DoppelError("The output ended before the expected line.")) }
      for waiter in endWaiters { waiter.resume() }
    }

    /// The first line (already read or still to come) satisfying `predicate`.
    func first(where predicate: @escaping @Sendable (String) -> Bool) async throws -> String {
      try await withCheckedThrowingContinuation { continuation in
        let outcome = state.withLock { state -> Result<String, any Error>? in
          if let line = state.lines.first(where: predicate) { return .success(line) }
          if state.finished { return .failure(DoppelError("The output ended; lines: \(state.lines)")) }
          state.waiters.append((predicate, continuation))
          return nil
        }
        if let outcome { continuation.resume(with: outcome) }
      }
    }

    func waitForEnd() async {
      await withCheckedContinuation { continuation in
        let done = state.withLock { state -> Bool in
          if !state.finished { state.endWaiters.append(continuation) }
          return state.finished
        }
        if done { continuation.resume() }
      }
    }
  }
#endif
