#if canImport(FoundationNetworking) && canImport(Glibc)
  @testable import DoppelCore
  @_spi(DoppelInternals) import DoppelToolkit
  import Foundation
  import Glibc
  import Testing

  /// The network guard adds its proxy variables to the environment while other threads may be
  /// reading it (a session made from `.ephemeral` reads it for its cache folder). glibc's `setenv`
  /// frees the array such a reader holds when it adds a variable; the guard publishes a new array
  /// with one store instead, so readers never see freed memory. (A CI run crashed in `strlen`
  /// under `URLSessionConfiguration.ephemeral` before.)
  @Suite struct NetworkGuardEnvironmentTests {
    @Test func variablesAddedWhileOtherThreadsReadTheEnvironmentAreReadWhole() async {
      let prefix = "DOPPEL_GUARD_TEST_\(UInt32.random(in: 0...UInt32.max))_"
      let names = (0..<200).map { "\(prefix)\($0)" }
      let reading = Locked(true)
      let started = Locked(0)
      let reads = Locked(0)
      // Two threads read the whole environment over and over (not tasks: they would hold the
      // cooperative pool's threads) until the variables are added, or for at most 20,000 reads.
      let finished = AsyncStream<Void> { continuation in
        for _ in 0..<2 {
          Thread.detachNewThread {
            started.withLock { $0 += 1 }
            var count = 0
            while reading.withLock({ $0 }) && count < 20_000 {
              count += ProcessInfo.processInfo.environment.isEmpty ? 0 : 1
            }
            reads.withLock { $0 += count }
            continuation.yield()
          }
        }
      }
      for _ in 0..<100_000 where started.withLock({ $0 }) < 2 { await Task.yield() }
      for pair in stride(from: 0, to: names.count, by: 2) {
        NetworkGuard.addMissingVariables([names[pair], names[pair + 1]])
      }
      reading.withLock { $0 = false }
      var done = 0
      for await _ in finished {
        done += 1
        if done == 2 { break }
      }
      #expect(reads.withLock { $0 } > 0)
      #expect(names.allSatisfy { getenv($0).map { String(cString: $0) } == "" })
      // A variable already set is left as it is.
      setenv(names[0], "kept", 1)
      NetworkGuard.addMissingVariables([names[0]])
      #expect(String(cString: getenv(names[0])) == "kept")
    }
  }
#endif
