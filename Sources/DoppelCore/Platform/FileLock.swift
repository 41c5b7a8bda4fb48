@_spi(DoppelInternals) import DoppelToolkit
import Foundation

#if canImport(Darwin)
  import Darwin
#elseif canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// An exclusive lock between processes (and threads) on a file: `flock` on a lock file next to
/// it, which exists only while someone holds the lock.
package enum FileLock {
  /// Runs `body` holding the lock on `path` (created if needed, removed when done).
  ///
  /// The lock file is removed before it is unlocked; a process that was waiting for it then sees
  /// that the path no longer names the file it locked, and starts again with a new one. So no
  /// lock file is left behind, and no two processes ever hold the lock at once.
  ///
  /// - Throws: ``DoppelError`` when the lock file cannot be created (`what` names the file it
  ///   guards).
  static package func withLock<T>(_ path: String, guarding what: String, _ body: () throws -> T) throws -> T {
    let descriptor = try acquire(path, guarding: what)
    defer {
      unlink(path)
      close(descriptor)
    }
    return try body()
  }

  private static func acquire(_ path: String, guarding what: String) throws -> Int32 {
    while true {
      let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
      guard descriptor >= 0 else {
        let reason = String(cString: strerror(errno))
        throw DoppelError.file(
          "Could not lock \(what) to write it: creating \(path) failed (\(reason)). Check that the folder is writable.")
      }
      while flock(descriptor, LOCK_EX) != 0 {
        guard errno == EINTR else {
          let reason = String(cString: strerror(errno))
          close(descriptor)
          throw DoppelError.file("Could not lock \(what) to write it: locking \(path) failed (\(reason)).")
        }
      }
      var held = stat()
      var named = stat()
      if fstat(descriptor, &held) == 0, stat(path, &named) == 0, held.st_dev == named.st_dev,
        held.st_ino == named.st_ino
      {
        return descriptor
      }
      // The holder before us removed the file we locked: lock the new one.
      close(descriptor)
    }
  }
}

/// Reads a whole file named from outside (a manifest, a cassette, a response body file), refusing
/// what is not a regular file: a device such as `/dev/zero`, a pipe or a socket may never end, and
/// reading it whole would take all the memory there is.
package enum WholeFile {
  /// Thrown for a path that names something other than a regular file.
  struct NotRegular: Error {}

  /// Why such a file is refused, for messages: "… could not read X: \(reason). …".
  static let notRegularReason =
    "it is not a regular file (a directory, a device, a pipe or a socket; a device or a pipe may never end)"

  /// Thrown for a file larger than the limit a caller gave, with its size in bytes.
  struct TooLarge: Error {
    package let size: Int64
  }

  /// The file's bytes.
  ///
  /// - Parameter limit: the most bytes the file may hold, or `nil` for no limit. The size is
  ///   looked at before reading, so a larger file is refused without reading any of it.
  /// - Throws: ``NotRegular`` for a path naming something other than a regular file, ``TooLarge``
  ///   for a file larger than `limit`, or what `Data(contentsOf:)` throws.
  package static func read(_ url: URL, limit: Int? = nil) throws -> Data {
    if url.isFileURL, let identity = FileIdentity(path: url.path) {
      guard identity.isRegularFile else { throw NotRegular() }
      if let limit, identity.size > Int64(limit) { throw TooLarge(size: identity.size) }
    }
    return try Data(contentsOf: url)
  }

  /// The file's bytes, or the error `failure` makes from why they could not be read, worded to
  /// follow "could not read X: " in a message: ``notRegularReason``, "there is no such file", or
  /// "it could not be read".
  package static func read<Failure: Error>(_ url: URL, orThrow failure: (_ reason: String) -> Failure)
    throws(Failure) -> Data
  {
    do {
      return try read(url)
    } catch is NotRegular {
      throw failure(notRegularReason)
    } catch {
      let exists = url.isFileURL && FileManager.default.fileExists(atPath: url.path)
      throw failure(exists || !url.isFileURL ? "it could not be read" : "there is no such file")
    }
  }
}
