@_spi(DoppelInternals) import DoppelToolkit
import Foundation

/// Where Apple's `URLProtocol` contract wants every client call: the thread that called
/// `startLoading`, in the run-loop modes that thread's run loop was running then.
///
/// Built only from APIs both Foundations have (`Thread`, `RunLoop.current`, `currentMode`,
/// `perform(inModes:block:)`), so Linux compiles it and its tests drive it with a fake client on a
/// run-loop thread of their own; on Apple platforms the URLSession front door uses it for every
/// request (``Platform/Delivery/loadingThread``).
struct LoadingThread: @unchecked Sendable {
  // Safe: from other threads the run loop is only handed a block (`perform(inModes:block:)`,
  // which enqueues it with CoreFoundation's thread-safe `CFRunLoopPerformBlock`) and woken; the
  // thread is only compared by identity.
  let thread: Thread
  let runLoop: RunLoop
  /// The default mode, and the mode the run loop was running when the loading started, if another.
  let modes: [RunLoop.Mode]

  /// The calling thread, its run loop and the modes to deliver in; `nil` when the calling thread
  /// runs no run loop now (a block handed to it would never run).
  static func current() -> LoadingThread? {
    let runLoop = RunLoop.current
    guard let mode = runLoop.currentMode else { return nil }
    return LoadingThread(thread: .current, runLoop: runLoop, modes: mode == .default ? [.default] : [.default, mode])
  }

  /// Whether the caller is on this thread.
  var isCurrent: Bool { Thread.current === thread }

  /// Runs `work` on this thread, in its modes, as soon as its run loop gets to it. Blocks handed
  /// over this way run in the order given.
  func perform(_ work: @escaping @Sendable () -> Void) {
    runLoop.perform(inModes: modes, block: work)
    wake()
  }

  /// `perform(inModes:block:)` only enqueues the block: a run loop asleep waiting for its sources
  /// does not run it until something else wakes it (measured on Linux: a sleeping loop stayed
  /// asleep for 3 s). CoreFoundation's `CFRunLoopWakeUp` wakes it on Apple platforms, as the
  /// long-lived URLProtocol stubs do; swift-corelibs-foundation does not make it public, and a
  /// timer due now, added in the same modes, wakes the loop there instead.
  private func wake() {
    #if canImport(Darwin)
      CFRunLoopWakeUp(runLoop.getCFRunLoop())
    #else
      let timer = Timer(timeInterval: 0, repeats: false) { _ in }
      for mode in modes { runLoop.add(timer, forMode: mode) }
    #endif
  }
}
