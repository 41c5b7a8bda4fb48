import Foundation

#if canImport(Darwin)
  import Darwin
#else
  import Glibc
#endif

/// Thin wrappers over the BSD socket calls the server needs, with `EINTR` retried.
enum Socket {
  #if canImport(Darwin)
    static let streamType = SOCK_STREAM
    static let sendFlags: Int32 = 0
  #else
    static let streamType = Int32(SOCK_STREAM.rawValue)
    static let sendFlags = Int32(MSG_NOSIGNAL)
  #endif

  /// The system's description of the current `errno`, with what was being done.
  static func failure(_ doing: String) -> TestHTTPServer.StartError {
    TestHTTPServer.StartError(description: "TestHTTPServer could not \(doing): \(String(cString: strerror(errno)))")
  }

  /// A listening socket on 127.0.0.1 with an OS-chosen port, and that port.
  static func listenOnLoopback() throws -> (fd: Int32, port: Int) {
    let fd = socket(AF_INET, streamType, 0)
    guard fd >= 0 else { throw failure("create a socket") }
    var yes: Int32 = 1
    _ = setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
    var address = sockaddr_in()
    #if canImport(Darwin)
      address.sin_len = UInt8(MemoryLayout<sockaddr_in>.size)
    #endif
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = 0
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    let bound = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
      }
    }
    guard bound == 0 else {
      let error = failure("bind 127.0.0.1")
      close(fd)
      throw error
    }
    guard listen(fd, 128) == 0 else {
      let error = failure("listen")
      close(fd)
      throw error
    }
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let named = withUnsafeMutablePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
    }
    guard named == 0 else {
      let error = failure("read the bound port")
      close(fd)
      throw error
    }
    return (fd, Int(UInt16(bigEndian: address.sin_port)))
  }

  /// Prepares an accepted socket: no Nagle delay (keep-alive requests would otherwise wait for
  /// delayed ACKs), and on Darwin no `SIGPIPE` when the peer went away.
  static func configureAccepted(_ fd: Int32) {
    var yes: Int32 = 1
    _ = setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &yes, socklen_t(MemoryLayout<Int32>.size))
    #if canImport(Darwin)
      _ = setsockopt(fd, SOL_SOCKET, SO_NOSIGPIPE, &yes, socklen_t(MemoryLayout<Int32>.size))
    #endif
  }

  /// Waits until `fd` can accept or `wake` is readable; `true` when `fd` is ready.
  static func waitReadable(_ fd: Int32, orWake wake: Int32) -> Bool {
    var fds = [
      pollfd(fd: fd, events: Int16(POLLIN), revents: 0),
      pollfd(fd: wake, events: Int16(POLLIN), revents: 0),
    ]
    while true {
      let result = poll(&fds, nfds_t(fds.count), -1)
      if result < 0 && errno == EINTR { continue }
      guard result > 0 else { return false }
      if fds[1].revents != 0 { return false }
      return fds[0].revents != 0
    }
  }

  /// Accepts one connection, or `nil`.
  static func accept(_ fd: Int32) -> Int32? {
    while true {
      #if canImport(Darwin)
        let client = Darwin.accept(fd, nil, nil)
      #else
        let client = Glibc.accept(fd, nil, nil)
      #endif
      if client >= 0 { return client }
      if errno == EINTR || errno == ECONNABORTED { continue }
      return nil
    }
  }

  /// Appends what is available (blocking until something is); `false` at end of stream or on error.
  static func receive(_ fd: Int32, into buffer: inout Data) -> Bool {
    var chunk = [UInt8](repeating: 0, count: 64 * 1024)
    while true {
      let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
      if count > 0 {
        buffer.append(contentsOf: chunk[0..<count])
        return true
      }
      if count < 0 && errno == EINTR { continue }
      return false
    }
  }

  /// Writes all of `data`; `false` when the peer went away.
  static func sendAll(_ fd: Int32, _ data: Data) -> Bool {
    data.withUnsafeBytes { raw -> Bool in
      guard let base = raw.baseAddress else { return true }
      var offset = 0
      while offset < raw.count {
        let count = send(fd, base + offset, raw.count - offset, sendFlags)
        if count > 0 {
          offset += count
        } else if count < 0 && errno == EINTR {
          continue
        } else {
          return false
        }
      }
      return true
    }
  }

  /// Ends both directions of a connection, waking any thread blocked on it.
  static func shutdownBoth(_ fd: Int32) {
    _ = shutdown(fd, Int32(SHUT_RDWR))
  }

  /// Ends a connection the server closes first without losing the answer: stop sending, then
  /// read (for up to a second) what the peer still sends, so closing with unread data does not
  /// reset the connection before the peer has read the response.
  static func drainBeforeClose(_ fd: Int32) {
    _ = shutdown(fd, Int32(SHUT_WR))
    var timeout = timeval(tv_sec: 1, tv_usec: 0)
    _ = setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    var sink = Data()
    while sink.count < 1024 * 1024 && receive(fd, into: &sink) {}
  }

  /// Closes a descriptor.
  static func close(_ fd: Int32) {
    #if canImport(Darwin)
      _ = Darwin.close(fd)
    #else
      _ = Glibc.close(fd)
    #endif
  }

  /// A pipe: read end, write end.
  static func makePipe() throws -> (read: Int32, write: Int32) {
    var ends: [Int32] = [0, 0]
    guard pipe(&ends) == 0 else { throw failure("create a pipe") }
    return (ends[0], ends[1])
  }

  /// Writes one byte to wake a `poll`.
  static func wake(_ fd: Int32) {
    var byte: UInt8 = 1
    _ = write(fd, &byte, 1)
  }
}
