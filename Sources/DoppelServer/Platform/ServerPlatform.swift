#if TLS
  import Foundation

  #if canImport(Glibc)
    import Glibc
  #elseif canImport(Musl)
    import Musl
  #elseif canImport(Darwin)
    import Darwin
  #endif

  /// What differs between Apple's platforms and Linux for the stub server, kept in one room as the
  /// core keeps its own seam (`DoppelCore/Platform`): where the local certificate authority lives,
  /// and the C library's address functions the authority's name constraints use. Everything else
  /// in this module compiles the same on every platform.
  enum ServerPlatform {
    /// The folder a per-user data file belongs in when nothing else is set: on Apple's platforms
    /// `~/Library/Application Support/Doppel` (where macOS apps keep such files); elsewhere
    /// `$XDG_DATA_HOME/doppel` (the XDG base directory rule, only for an absolute path), or
    /// `~/.local/share/doppel`.
    static func dataFolder(userHome: String, environment: [String: String]) -> URL {
      #if canImport(Darwin)
        return URL(fileURLWithPath: userHome, isDirectory: true)
          .appendingPathComponent("Library/Application Support/Doppel", isDirectory: true)
      #else
        if let data = environment["XDG_DATA_HOME"], data.hasPrefix("/") {
          return URL(fileURLWithPath: data, isDirectory: true).appendingPathComponent("doppel", isDirectory: true)
        }
        return URL(fileURLWithPath: userHome, isDirectory: true)
          .appendingPathComponent(".local/share/doppel", isDirectory: true)
      #endif
    }

    /// The 4 or 16 bytes of an IPv4 or IPv6 address in text form (`inet_pton`), or `nil`.
    static func addressBytes(_ text: String) -> [UInt8]? {
      var v4 = in_addr()
      if inet_pton(AF_INET, text, &v4) == 1 {
        return withUnsafeBytes(of: &v4) { Array($0) }
      }
      var v6 = in6_addr()
      if inet_pton(AF_INET6, text, &v6) == 1 {
        return withUnsafeBytes(of: &v6) { Array($0) }
      }
      return nil
    }

    /// 4 or 16 address bytes in their usual text form (`inet_ntop`: `127.0.0.1`, `::1`), or `nil`
    /// when the C library cannot write them.
    static func addressText(_ address: [UInt8]) -> String? {
      guard address.count == 4 || address.count == 16 else { return nil }
      var text = [CChar](repeating: 0, count: 64)
      let family = address.count == 4 ? AF_INET : AF_INET6
      let written = address.withUnsafeBytes { inet_ntop(family, $0.baseAddress, &text, socklen_t(text.count)) }
      guard written != nil else { return nil }
      return String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
  }
#endif
