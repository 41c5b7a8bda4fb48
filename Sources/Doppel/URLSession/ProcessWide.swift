import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// The URLProtocol class registered with `URLProtocol.registerClass` for process-wide interception.
final class ProcessWideURLProtocol: DoppelURLProtocol {
  override class var routeID: UInt32 { ProcessWide.state.withLock { $0.backend } }

  override class func canInit(with request: URLRequest) -> Bool { routeID != 0 }
}

enum ProcessWide {
  struct State {
    var registered = false
    var backend: UInt32 = 0
  }

  static let state = Locked(State())
  static let gate = Gate()

  /// Lets one process-wide backend in at a time.
  actor Gate {
    private var busy = false
    private var waiting: [CheckedContinuation<Void, Never>] = []

    func enter() async {
      if !busy {
        busy = true
        return
      }
      await withCheckedContinuation { waiting.append($0) }
    }

    func leave() {
      if waiting.isEmpty { busy = false } else { waiting.removeFirst().resume() }
    }
  }

  static let lateMessage = """
    Doppel cannot intercept URLSession.shared in this process: a URLSession was created before \
    Doppel registered its URLProtocol, and on Linux FoundationNetworking then consults registered \
    classes only after its own HTTP handler, so requests would reach the real network. Start \
    process-wide interception before anything creates a URLSession (for example first thing in \
    main, or in a test process of its own), or better, inject backend.session into the code \
    under test.
    """
}

extension Backend {
  /// Routes requests of `URLSession.shared` (and, on Apple platforms, of sessions made from
  /// `.default` configurations) to this backend, for code that cannot be given a session.
  ///
  /// Only one backend intercepts process-wide at a time. Prefer injecting ``session``: it is
  /// isolated, and parallel tests cannot disturb each other.
  ///
  /// - Important: On Linux this works only if it is called before any `URLSession` exists in the
  ///   process (FoundationNetworking reads the registered classes once). When that is no longer
  ///   possible, this throws a ``DoppelError`` that says so, instead of letting requests reach the
  ///   real network.
  /// - Throws: ``DoppelError`` when another backend intercepts already, or on Linux when a
  ///   `URLSession` was created first.
  public func interceptProcessWide() throws {
    try ProcessWide.state.withLock { state in
      if state.backend != 0 && state.backend != id {
        throw DoppelError(
          "Another Backend already intercepts process-wide. Call stopInterceptingProcessWide() on it first, or use Backend.withProcessWideBackend { … }, which waits its turn."
        )
      }
      if !state.registered {
        _ = URLProtocol.registerClass(ProcessWideURLProtocol.self)
        state.registered = true
      }
      #if canImport(FoundationNetworking)
        let classes = URLSession.shared.configuration.protocolClasses ?? []
        guard let first = classes.first, first == ProcessWideURLProtocol.self else {
          throw DoppelError(ProcessWide.lateMessage)
        }
      #endif
      state.backend = id
    }
  }

  /// Stops process-wide interception by this backend; afterwards `URLSession.shared` uses the
  /// network again. Does nothing when this backend is not the one intercepting.
  public func stopInterceptingProcessWide() {
    ProcessWide.state.withLock { state in
      if state.backend == id { state.backend = 0 }
    }
  }

  /// Whether this backend is the one intercepting process-wide.
  public var isInterceptingProcessWide: Bool { ProcessWide.state.withLock { $0.backend == id } }

  /// Runs `body` with a new backend that intercepts process-wide, waiting for any other
  /// process-wide backend to finish first, and always stops intercepting afterwards.
  public static func withProcessWideBackend<Result>(
    _ body: (Backend) async throws -> Result
  ) async throws -> Result {
    await ProcessWide.gate.enter()
    let backend = Backend()
    do {
      try backend.interceptProcessWide()
      let result = try await body(backend)
      backend.stopInterceptingProcessWide()
      await ProcessWide.gate.leave()
      return result
    } catch {
      backend.stopInterceptingProcessWide()
      await ProcessWide.gate.leave()
      throw error
    }
  }
}
