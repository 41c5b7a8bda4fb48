#if Server
  import Dispatch
  import Foundation

  #if canImport(Glibc)
    import Glibc
  #elseif canImport(Darwin)
    import Darwin
  #endif

  /// Calls a handler when the process gets SIGINT (Ctrl-C) or SIGTERM, instead of dying, so that
  /// the server shuts down gracefully and `record` saves its cassette.
  final class SignalWatcher: Sendable {
    // Safe: the sources are set once in `init` and only cancelled after; DispatchSource is
    // thread-safe.
    private nonisolated(unsafe) let sources: [any DispatchSourceSignal]

    init(_ handler: @escaping @Sendable (Int32) -> Void) {
      sources = [SIGINT, SIGTERM].map { number in
        signal(number, SIG_IGN)
        let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
        source.setEventHandler { handler(number) }
        source.resume()
        return source
      }
    }

    func cancel() {
      for source in sources { source.cancel() }
    }
  }
#endif
