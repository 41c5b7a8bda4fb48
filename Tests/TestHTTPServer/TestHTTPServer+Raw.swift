import Foundation

#if canImport(Darwin)
  import Darwin
#else
  import Glibc
#endif

extension TestHTTPServer {
  /// Sends `bytes` as they are on a new connection, half-closes it, and returns everything the
  /// server wrote back until it closed: for tests of framing, pipelining and malformed requests
  /// that `URLSession` cannot produce. Blocks the calling thread.
  ///
  /// - Throws: ``StartError`` when the connection cannot be made.
  public func exchange(_ bytes: Data) throws -> Data {
    let fd = socket(AF_INET, Socket.streamType, 0)
    guard fd >= 0 else { throw Socket.failure("create a client socket") }
    defer { Socket.close(fd) }
    var address = sockaddr_in()
    #if canImport(Darwin)
      address.sin_len = UInt8(MemoryLayout<sockaddr_in>.size)
    #endif
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = UInt16(port).bigEndian
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    let connected = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
      }
    }
    guard connected == 0 else { throw Socket.failure("connect to 127.0.0.1:\(port)") }
    Socket.configureAccepted(fd)
    _ = Socket.sendAll(fd, bytes)
    _ = shutdown(fd, Int32(SHUT_WR))
    var received = Data()
    while Socket.receive(fd, into: &received) {}
    return received
  }

  /// ``exchange(_:)`` with text; the answer decoded as UTF-8.
  public func exchange(_ text: String) throws -> String {
    String(decoding: try exchange(Data(text.utf8)), as: UTF8.self)
  }
}
