@_spi(DoppelInternals) import DoppelToolkit
import Foundation

#if canImport(Darwin)
  import Darwin
#elseif canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// An open regular file, read a piece at a time at any offset: how the stub server sends a large
/// file body from disk as its client reads it, without ever holding the whole file.
///
/// `@unchecked Sendable` is safe: the descriptor is set once and never changes, each read is a
/// positioned read (`pread`, which shares no file offset between callers), and the descriptor is
/// closed only in `deinit`, when no caller can read any more.
package final class FileReader: @unchecked Sendable {
  private let descriptor: Int32

  /// Opens the file at `path`, or `nil` when it cannot be opened or is not a regular file (it was
  /// replaced by a directory, a pipe or a device since it was looked at). The file is opened
  /// without blocking, so a pipe put in its place cannot stall the caller.
  package init?(path: String) {
    let descriptor = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
    guard descriptor >= 0 else { return nil }
    var info = stat()
    guard fstat(descriptor, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else {
      close(descriptor)
      return nil
    }
    self.descriptor = descriptor
  }

  deinit {
    close(descriptor)
  }

  /// Up to `count` bytes from `offset`: fewer at the end of the file, none beyond it.
  ///
  /// - Throws: `CocoaError(.fileReadUnknown)` when the system cannot read the file.
  package func read(at offset: Int, count: Int) throws -> Data {
    var data = Data(count: count)
    let read = data.withUnsafeMutableBytes { buffer -> Int in
      while true {
        let result = pread(descriptor, buffer.baseAddress, count, off_t(offset))
        if result < 0 && errno == EINTR { continue }
        return result
      }
    }
    guard read >= 0 else { throw CocoaError(.fileReadUnknown) }
    data.count = read
    return data
  }
}
