#if Server
  import Doppel
  import Foundation
  import Testing

  #if canImport(FoundationNetworking)
    import FoundationNetworking
    @_spi(DoppelInternals) import DoppelToolkit
  #endif

  /// The `doppel-cli` executable (the doppel tool) built next to the test bundle.
  func doppelExecutable() throws -> URL { try builtExecutable("doppel-cli") }

  /// The package's executable `name` built next to the test bundle.
  func builtExecutable(_ name: String) throws -> URL {
    var directories = [Bundle.main.bundleURL, Bundle.main.bundleURL.deletingLastPathComponent()]
    if let arguments = CommandLine.arguments.first {
      directories.append(URL(fileURLWithPath: arguments).deletingLastPathComponent())
    }
    if let executable = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") {
      directories.append(URL(fileURLWithPath: executable).deletingLastPathComponent())
    }
    for directory in directories {
      let candidate = directory.appendingPathComponent(name)
      if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
    }
    throw DoppelError(
      "The \(name) executable is not next to the tests (looked in \(directories.map(\.path))). Run swift build first."
    )
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

  /// A fresh temporary directory holding `files` (names relative to it, and their text).
  func temporaryDirectory(holding files: [String: String]) throws -> URL {
    let directory = try temporaryDirectory()
    for (name, text) in files { try Data(text.utf8).write(to: directory.appendingPathComponent(name)) }
    return directory
  }

  /// A URLSession on the real HTTP stack.
  let realSession = URLSession(configuration: .ephemeral)

  /// Sends a GET (or another method) and returns the status and body.
  func fetch(
    _ url: URL, method: String = "GET", headers: [String: String] = [:], body: String? = nil
  ) async throws -> (status: Int, body: String) {
    var request = URLRequest(url: url)
    request.httpMethod = method
    request.httpBody = body.map { Data($0.utf8) }
    for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
    let (data, response) = try await realSession.data(for: request)
    return ((response as? HTTPURLResponse)?.statusCode ?? 0, String(decoding: data, as: UTF8.self))
  }

  /// A running `doppel` with its output read line by line.
  ///
  /// Started with `posix_spawn` rather than Foundation's `Process`: on Linux (Swift 6.3.1)
  /// `Process.run()` lists `/proc/self/fd` with a read past the end of a directory entry, and now
  /// and then crashed the whole test process in CI with a bad pointer in `memcpy` (fixed upstream
  /// in swift-corelibs-foundation #5472).
  final class DoppelProcess: Sendable {
    private let pid: pid_t
    /// Standard output, line by line.
    let output = Lines()
    /// Standard error, line by line.
    let errors = Lines()
    /// Held while a process launches, so that no launch inherits another's pipes.
    private static let launching = NSLock()
    private let exit = Locked<(status: Int32?, waiters: [CheckedContinuation<Int32, Never>])>((nil, []))

    /// Starts `doppel arguments…` (or another `executable`, such as curl), in `directory` when
    /// given, with `environment` added to the test's own.
    init(
      _ arguments: [String], executable: String? = nil, directory: URL? = nil, environment: [String: String] = [:]
    ) throws {
      let executable = try executable ?? doppelExecutable().path
      let variables = ProcessInfo.processInfo.environment.merging(environment) { _, added in added }
      let (pid, outputFD, errorFD) = try Self.launching.withLock {
        try spawn(executable, arguments, directory: directory?.path, environment: variables)
      }
      self.pid = pid
      // A thread of its own reads each pipe (blocking reads, no dispatch sources: those sometimes
      // miss the end of a pipe on Linux when many processes run at once).
      for (descriptor, lines) in [(outputFD, output), (errorFD, errors)] {
        Thread.detachNewThread {
          var buffer = [UInt8](repeating: 0, count: 65_536)
          while true {
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { break }
            lines.append(Data(buffer[0..<count]))
          }
          close(descriptor)
          lines.finish()
        }
      }
      Thread.detachNewThread { [exit] in
        var raw: Int32 = 0
        while waitpid(pid, &raw, 0) < 0 && errno == EINTR {}
        // The exit code, or the signal that ended the process.
        let status = raw & 0x7F == 0 ? (raw >> 8) & 0xFF : raw & 0x7F
        let waiters = exit.withLock { state in
          state.status = status
          defer { state.waiters = [] }
          return state.waiters
        }
        for waiter in waiters { waiter.resume(returning: status) }
      }
      // A test waiting for a line that never comes fails instead of hanging: the process is
      // stopped after a minute, which ends its output.
      Task { [exit] in
        try? await Task.sleep(for: .seconds(60))
        if exit.withLock({ $0.status == nil }) { kill(pid, SIGKILL) }
      }
    }

    deinit {
      // A test that failed early must not leave its server running.
      if exit.withLock({ $0.status == nil }) { kill(pid, SIGKILL) }
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

    /// The process's number, to read what the system says of it (`/proc/<pid>/status`).
    var processID: pid_t { pid }

    /// Sends SIGINT (Ctrl-C), unless the process has ended (its number may be another's by then).
    func interrupt() {
      exit.withLock { state in
        if state.status == nil { kill(pid, SIGINT) }
      }
    }

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
    static func run(
      _ arguments: [String], executable: String? = nil, directory: URL? = nil, environment: [String: String] = [:]
    ) async throws -> (status: Int32, output: String, error: String) {
      let process = try DoppelProcess(arguments, executable: executable, directory: directory, environment: environment)
      let status = await process.waitForExit()
      await process.output.waitForEnd()
      await process.errors.waitForEnd()
      return (status, process.outputLines.joined(separator: "\n"), process.errorLines.joined(separator: "\n"))
    }
  }

  /// Starts `executable` with `arguments`, its standard output and error on pipes whose read ends
  /// are returned, in `directory` when given, with exactly `environment`. The child keeps no other
  /// descriptor of the test process.
  private func spawn(
    _ executable: String, _ arguments: [String], directory: String?, environment: [String: String]
  ) throws -> (pid: pid_t, output: Int32, error: Int32) {
    var output: [Int32] = [-1, -1]
    var error: [Int32] = [-1, -1]
    guard pipe(&output) == 0, pipe(&error) == 0 else {
      throw DoppelError("Cannot make a pipe for \(executable): errno \(errno).")
    }
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_adddup2(&actions, output[1], 1)
    posix_spawn_file_actions_adddup2(&actions, error[1], 2)
    // glibc has both (2.29 and 2.34); Swift's Glibc module does not show them, so look them up.
    if let directory {
      guard let addChdir = glibcFunction("posix_spawn_file_actions_addchdir_np", as: AddChdir.self) else {
        throw DoppelError("This C library cannot start a process in another directory (no addchdir_np).")
      }
      _ = addChdir(&actions, directory)
    }
    if let addClosefrom = glibcFunction("posix_spawn_file_actions_addclosefrom_np", as: AddClosefrom.self) {
      _ = addClosefrom(&actions, 3)
    }
    let argv = ([executable] + arguments).map { strdup($0) }
    let envp = environment.map { strdup("\($0.key)=\($0.value)") }
    defer { for pointer in argv + envp { free(pointer) } }
    var pid: pid_t = 0
    let result = posix_spawn(&pid, executable, &actions, nil, argv + [nil], envp + [nil])
    close(output[1])
    close(error[1])
    guard result == 0 else {
      close(output[0])
      close(error[0])
      throw DoppelError("Cannot start \(executable): error \(result).")
    }
    return (pid, output[0], error[0])
  }

  private typealias AddChdir =
    @convention(c) (
      UnsafeMutablePointer<posix_spawn_file_actions_t>, UnsafePointer<CChar>
    ) -> Int32
  private typealias AddClosefrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32

  /// A function of the C library by name, or `nil` when it has none of that name.
  private func glibcFunction<Function>(_ name: String, as type: Function.Type) -> Function? {
    guard let symbol = dlsym(dlopen(nil, RTLD_NOW), name) else { return nil }
    return unsafeBitCast(symbol, to: type)
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
