@_spi(DoppelInternals) import DoppelToolkit
import Foundation

#if canImport(Darwin)
  import Darwin
#elseif canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// A TCP socket bound to 127.0.0.1 on a port the system picks, closed on `exec`: what the network
/// guard listens on and what the refusing port holds.
enum LoopbackSocket {
  /// Opens and binds the socket, and listens on it with `backlog` when there is one.
  ///
  /// - Returns: the descriptor and the port, or `nil` when the system refuses (the socket is
  ///   closed then).
  static func make(listening backlog: Int32?) -> (descriptor: Int32, port: UInt16)? {
    // The socket type is an Int32 in Apple's C library and an enum in glibc's.
    #if canImport(Darwin)
      let descriptor = socket(AF_INET, SOCK_STREAM, 0)
    #else
      let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    #endif
    guard descriptor >= 0 else { return nil }
    _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC)
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = 0
    address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafeMutablePointer(to: &address) { pointer in
      pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { socketAddress in
        bind(descriptor, socketAddress, length) == 0
          && (backlog.map { listen(descriptor, $0) == 0 } ?? true)
          && getsockname(descriptor, socketAddress, &length) == 0
      }
    }
    guard bound else {
      close(descriptor)
      return nil
    }
    return (descriptor, UInt16(bigEndian: address.sin_port))
  }
}
