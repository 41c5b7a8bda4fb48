#if TLS
  import Doppel
  import Foundation
  import SwiftASN1
  import X509

  /// The names the local certificate authority signs for, and the name constraint that says so in
  /// its certificate (see ``LocalCertificateAuthority``).
  enum PermittedNames {
    /// `localhost` and, by the rules of name constraints, every name under `.localhost`.
    static let domain = "localhost"
    /// `127.0.0.0/8`, `::1/128` and `10.0.2.2/32` (the Android emulator's alias for its host), each
    /// as an address followed by its mask: the addresses the authority signs for.
    static let ranges: [[UInt8]] = [
      [127, 0, 0, 0, 255, 0, 0, 0],
      Array(repeating: 0, count: 15) + [1] + Array(repeating: 0xFF, count: 16),
      [10, 0, 2, 2, 255, 255, 255, 255],
    ]

    /// The name constraints extension of a new authority's certificate: DNS names under
    /// `localhost`, and IP addresses in ``ranges`` and `addresses` (each a single address).
    ///
    /// BoringSSL's verifier (SwiftNIO SSL, AsyncHTTPClient, gRPC Swift) does not implement IP
    /// address constraints: it refuses every certificate with an IP address in its subject
    /// alternative names under such an issuer (`X509_V_ERR_UNSUPPORTED_CONSTRAINT_TYPE`), though
    /// it checks DNS names as usual. So the server hands a client that sends a name (SNI) a
    /// certificate with DNS names only (see ``StubServer/TLS``).
    static func constraints(allowing addresses: [[UInt8]]) -> NameConstraints {
      let masked = addresses.map { $0 + [UInt8](repeating: 0xFF, count: $0.count) }
      return NameConstraints(
        permittedDNSDomains: [domain],
        permittedIPRanges: (ranges + masked).map { ASN1OctetString(contentBytes: $0[...]) })
    }

    /// The IP ranges (address then mask) `certificate`'s name constraint permits; `nil` when it
    /// has no name constraint, empty when it does not constrain IP addresses.
    static func ranges(of certificate: Certificate) -> [[UInt8]]? {
      guard let constraints = try? certificate.extensions.nameConstraints else { return nil }
      return constraints.permittedIPRanges.map { Array($0.bytes) }
    }

    /// `range` (an address followed by its mask) as `127.0.0.0/8`.
    static func describe(range: [UInt8]) -> String {
      let half = range.count / 2
      let address = Array(range[..<half])
      let bits = range[half...].reduce(0) { $0 + $1.nonzeroBitCount }
      let shown = ServerPlatform.addressText(address) ?? address.map(String.init).joined(separator: ".")
      return "\(shown)/\(bits)"
    }

    /// What the authority may sign for, in words, for messages.
    static let summary =
      "localhost and names under .localhost, 127.0.0.0/8, ::1, and 10.0.2.2 (where an Android emulator reaches this computer)"

    /// `name` as a subject alternative name: an IP address when it is one, otherwise a DNS name.
    ///
    /// - Throws: `DoppelError` when it is neither, or when the authority may not sign for it.
    /// `ranges` are the IP ranges the authority signs for (by default, those of every authority).
    static func parse(_ name: String, ranges: [[UInt8]] = ranges) throws -> GeneralName {
      let trimmed = name.hasPrefix("[") && name.hasSuffix("]") ? String(name.dropFirst().dropLast()) : name
      if let bytes = ipAddressBytes(trimmed) {
        guard permits(address: bytes, in: ranges) else { throw refusal(name, ranges: ranges) }
        return .ipAddress(ASN1OctetString(contentBytes: bytes[...]))
      }
      let lowered = name.lowercased()
      guard isDNSName(lowered) else {
        throw DoppelError.file(
          "\(name) is neither a DNS name nor an IP address, so a certificate cannot name it. Give a name such as api.localhost or an address such as 127.0.0.1."
        )
      }
      guard lowered == domain || lowered.hasSuffix("." + domain) else { throw refusal(name, ranges: ranges) }
      return .dnsName(lowered)
    }

    private static func refusal(_ name: String, ranges: [[UInt8]]) -> DoppelError {
      let extra = ranges.filter { !Self.ranges.contains($0) }.map(describe(range:))
      let allowed = extra.isEmpty ? "" : " (and, as it was made to allow, \(extra.joined(separator: ", ")))"
      let fix =
        ipAddressBytes(name) == nil
        ? "Use one of those names."
        : "For an address of this computer on your network, make a new authority that allows it: doppel trust --remove, then doppel trust --allow-ip \(name)."
      return DoppelError.file(
        "The local certificate authority may not sign for \(name): it may sign only for \(summary)\(allowed), so that its key, which is kept on disk, cannot be used to impersonate a real site. \(fix)"
      )
    }

    static func permits(address: [UInt8], in ranges: [[UInt8]] = ranges) -> Bool {
      ranges.contains { range in
        let half = range.count / 2
        guard address.count == half else { return false }
        return (0..<half).allSatisfy { address[$0] & range[half + $0] == range[$0] & range[half + $0] }
      }
    }

    /// The 4 or 16 bytes of an IPv4 or IPv6 address in text form, or `nil`.
    static func ipAddressBytes(_ text: String) -> [UInt8]? { ServerPlatform.addressBytes(text) }

    /// Whether `name` (lowercased) is a DNS name: labels of letters, digits and hyphens, none
    /// starting or ending with a hyphen, at most 63 bytes each and 253 in all.
    private static func isDNSName(_ name: String) -> Bool {
      guard !name.isEmpty, name.utf8.count <= 253 else { return false }
      return name.split(separator: ".", omittingEmptySubsequences: false).allSatisfy { label in
        !label.isEmpty && label.utf8.count <= 63 && !label.hasPrefix("-") && !label.hasSuffix("-")
          && label.utf8.allSatisfy { byte in
            (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
              || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
              || byte == UInt8(ascii: "-")
          }
      }
    }
  }

  /// An exclusive lock on a folder, held across processes with `flock` on a file in it.
  enum FolderLock {
    /// Makes `folder` (readable by its owner only) when it is missing, then runs `body` while
    /// holding the folder's lock.
    static func holding<Result>(in folder: URL, _ body: () throws -> Result) throws -> Result {
      do {
        try FileManager.default.createDirectory(
          at: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
      } catch {
        throw DoppelError.file(
          "Cannot make the folder \(folder.path) for the local certificate authority: \(error). Choose a folder you can write to with DOPPEL_HOME."
        )
      }
      let path = folder.appendingPathComponent(".lock").path
      let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
      guard descriptor >= 0 else {
        throw DoppelError.file(
          "Cannot open \(path): \(String(cString: strerror(errno))). Check the folder's permissions.")
      }
      defer { close(descriptor) }
      while flock(descriptor, LOCK_EX) != 0 {
        guard errno == EINTR else {
          throw DoppelError.file("Cannot lock \(path): \(String(cString: strerror(errno))).")
        }
      }
      defer { _ = flock(descriptor, LOCK_UN) }
      return try body()
    }
  }

  /// Files written whole, created with their final permissions.
  enum SecureFile {
    /// Writes `data` to a new file beside `url` created with `mode` (never wider, whatever was
    /// there before), then moves it to `url`: a reader sees the whole file or none.
    static func create(_ data: Data, at url: URL, mode: mode_t) throws {
      let temporary = url.deletingLastPathComponent()
        .appendingPathComponent(".\(url.lastPathComponent).\(UUID().uuidString)").path
      let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode)
      guard descriptor >= 0 else {
        throw DoppelError.file(
          "Cannot create \(temporary): \(String(cString: strerror(errno))). Check the folder's permissions.")
      }
      var written = 0
      let failure: Int32? = data.withUnsafeBytes { buffer -> Int32? in
        while written < buffer.count {
          let count = write(descriptor, buffer.baseAddress! + written, buffer.count - written)
          if count < 0 {
            if errno == EINTR { continue }
            return errno
          }
          written += count
        }
        return fsync(descriptor) == 0 ? nil : errno
      }
      close(descriptor)
      if let failure {
        unlink(temporary)
        throw DoppelError.file("Cannot write \(temporary): \(String(cString: strerror(failure))).")
      }
      guard rename(temporary, url.path) == 0 else {
        let reason = String(cString: strerror(errno))
        unlink(temporary)
        throw DoppelError.file("Cannot move \(temporary) to \(url.path): \(reason).")
      }
    }
  }
#endif
