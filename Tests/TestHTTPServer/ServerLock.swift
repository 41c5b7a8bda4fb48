import Foundation

/// A value guarded by a lock: every piece of state the server's threads share lives in one.
final class ServerLock<Value>: @unchecked Sendable {
  // Safe: `value` is only read or written inside `withLock`, which holds `lock` for the whole access.
  private var value: Value
  private let lock = NSLock()

  init(_ value: Value) { self.value = value }

  func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
    lock.lock()
    defer { lock.unlock() }
    return try body(&value)
  }
}
