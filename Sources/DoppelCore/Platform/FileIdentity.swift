@_spi(DoppelInternals) import DoppelToolkit
import Foundation

#if canImport(Darwin)
  import Darwin
#elseif canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// What identifies one version of a file: it changes whenever the file is replaced (a new inode)
/// or written.
package struct FileIdentity: Equatable, Sendable {
  let device: UInt64
  let inode: UInt64
  let size: Int64
  let seconds: Int
  let nanoseconds: Int
  /// Whether it is a regular file (not a directory, a device or a pipe).
  let isRegularFile: Bool

  /// The identity of the file at `path` now, or `nil` when there is none.
  package init?(path: String) {
    var info = stat()
    guard stat(path, &info) == 0 else { return nil }
    isRegularFile = (info.st_mode & S_IFMT) == S_IFREG
    device = UInt64(truncatingIfNeeded: info.st_dev)
    inode = UInt64(truncatingIfNeeded: info.st_ino)
    size = Int64(truncatingIfNeeded: info.st_size)
    // The C libraries name the modification time differently: `st_mtimespec` in Apple's,
    // `st_mtim` in glibc's and musl's.
    #if canImport(Darwin)
      seconds = Int(info.st_mtimespec.tv_sec)
      nanoseconds = Int(info.st_mtimespec.tv_nsec)
    #else
      seconds = Int(info.st_mtim.tv_sec)
      nanoseconds = Int(info.st_mtim.tv_nsec)
    #endif
  }
}
