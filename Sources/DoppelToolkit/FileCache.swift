import Foundation

/// Values read from files, each read once per process while its file is unchanged (same
/// modification date and size): a document that many tests use is parsed once.
package struct FileCache<Value: Sendable>: Sendable {
  private let entries = Locked([String: (stamp: String, value: Value)]())

  package init() {}

  /// The value for the file at `url`: the cached one while the file is unchanged, else what
  /// `read` makes of it (kept for next time).
  package func value<Failure: Error>(for url: URL, read: (URL) throws(Failure) -> Value) throws(Failure) -> Value {
    let path = url.standardizedFileURL.path
    let attributes = try? FileManager.default.attributesOfItem(atPath: path)
    let stamp = "\(attributes?[.modificationDate] ?? "")-\(attributes?[.size] ?? "")"
    if let cached = entries.withLock({ $0[path] }), cached.stamp == stamp { return cached.value }
    let value = try read(url)
    entries.withLock { $0[path] = (stamp, value) }
    return value
  }
}
