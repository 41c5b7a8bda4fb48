import Foundation

/// A flag a test can read while a request is in flight.
///
/// Built on `NSLock` rather than Doppel's `package` lock, because the IntegrationTests package,
/// which is another package, compiles this file too.
public final class Flag: @unchecked Sendable {
  // Why `@unchecked` is safe: `value` is only read or written while `lock` is held.
  private let lock = NSLock()
  private var value = false

  /// A flag that is not set.
  public init() {}

  /// Sets the flag.
  public func set() { _ = testAndSet() }

  /// Sets the flag and returns whether it was set already.
  public func testAndSet() -> Bool {
    lock.lock()
    defer { lock.unlock() }
    let was = value
    value = true
    return was
  }

  /// Whether the flag is set.
  public var isSet: Bool {
    lock.lock()
    defer { lock.unlock() }
    return value
  }
}
