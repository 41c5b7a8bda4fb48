#if TLS
  import Crypto
  import Doppel
  import Foundation
  import SwiftASN1
  import X509

  /// A certificate authority of your own, on your computer, that signs the stub server's HTTPS
  /// certificates (`doppel serve --tls`), so that clients which trust it (once: `doppel trust`
  /// prints how) accept the server like any real HTTPS site.
  ///
  /// It is made the first time it is asked for, then kept and reused: a P-256 key and a
  /// self-signed certificate valid for 825 days, in a folder of your own (see
  /// ``defaultFolder(environment:)``). The key file is created readable by you only (mode 0600), in
  /// a folder only you may open (0700), and a key or folder that others can read is refused; the
  /// certificate file is what you hand to a keychain, a simulator or an emulator.
  ///
  /// The authority signs only for this computer, and its certificate says so, so that a client
  /// that has trusted it refuses what someone who copied its key (which is on disk) might sign:
  /// - a name constraint permits DNS names under `localhost`, and IP addresses in `127.0.0.0/8`,
  ///   `::1`, `10.0.2.2` (the address at which an Android emulator reaches the computer it runs
  ///   on) and the addresses given when it was made (`allowedAddresses`, such as a LAN address for
  ///   a device);
  /// - its extended key usage is server authentication only: no e-mail (S/MIME) or code signing.
  ///
  /// BoringSSL's verifier (SwiftNIO SSL, AsyncHTTPClient) does not implement IP address
  /// constraints and refuses a certificate naming an IP address under such an issuer: the server
  /// gives a client that asks for a name (TLS's server name indication) a certificate with DNS
  /// names only, so such clients connect to `https://localhost:<port>`. To start over,
  /// ``remove(folder:)`` (`doppel trust --remove`) and trust the new authority.
  ///
  /// ```swift
  /// let authority = try LocalCertificateAuthority(folder: LocalCertificateAuthority.defaultFolder())
  /// print("Trust \(authority.certificateFile.path)")
  /// ```
  public struct LocalCertificateAuthority: Sendable {
    /// The folder holding the authority's certificate and key.
    public let folder: URL
    /// Whether this value made the authority (it was not in ``folder`` before), rather than
    /// reading the one kept there.
    public let wasCreated: Bool
    /// The authority's certificate in PEM form: the contents of ``certificateFile``.
    public let certificatePEM: String

    /// What is wrong with an authority made by an older Doppel (valid for ten years, with no limit
    /// on IP addresses or on what it signs for), with the fix; `nil` for an authority as this
    /// version makes it. Such an authority still works: `doppel trust` and `doppel serve --tls`
    /// print this.
    public let outdatedReason: String?

    /// The IP address ranges the authority signs for, as its certificate states them
    /// (`127.0.0.0/8`, `::1/128`, `10.0.2.2/32`, and the addresses it was made to allow).
    public let permittedAddressRanges: [String]

    let certificate: Certificate
    let privateKey: P256.Signing.PrivateKey

    /// The name of the certificate's file in ``folder``.
    public static let certificateFileName = "doppel-ca.pem"
    /// The name of the private key's file in ``folder``.
    public static let privateKeyFileName = "doppel-ca-key.pem"

    /// The certificate's file: the one to trust.
    public var certificateFile: URL { folder.appendingPathComponent(Self.certificateFileName) }
    /// The private key's file, readable by its owner only. Never hand it to anyone.
    public var privateKeyFile: URL { folder.appendingPathComponent(Self.privateKeyFileName) }

    /// How long a new authority's certificate is valid: 825 days. Its key sits on disk, trusted by
    /// every client you installed it in, so it should not outlive the project that needed it;
    /// 825 days (the most Apple once allowed a TLS certificate) lets it serve two years of work,
    /// and `doppel trust --remove` ends it sooner.
    static let lifetime: TimeInterval = 825 * 24 * 60 * 60

    /// Opens the authority kept in `folder`, or makes one there (and the folder, readable by you
    /// only) when it holds none.
    ///
    /// Processes that open the same folder at the same time agree on one authority: the folder
    /// is locked while it is read or made.
    ///
    /// - Parameters:
    ///   - folder: where the authority is kept, such as ``defaultFolder(environment:)``.
    ///   - now: the time a new authority's validity starts from (an hour before it), and the
    ///     time an existing one must not have expired at.
    ///   - allowedAddresses: IP addresses a new authority may sign for besides `127.0.0.0/8`, `::1`
    ///     and `10.0.2.2`, such as `192.168.1.20` for a device on your network
    ///     (`doppel trust --allow-ip`). They are written into its certificate, which cannot change:
    ///     an existing authority that does not allow one of them is refused, with the fix.
    /// - Throws: `DoppelError` when the folder cannot be made or written, when it holds only one
    ///   of the two files, or files that are not an authority's certificate and its key, or an
    ///   authority that has expired, or does not allow one of `allowedAddresses`; when the key or
    ///   its folder can be read by other users; the message says which file and what to do.
    public init(folder: URL, now: Date = Date(), allowedAddresses: [String] = []) throws {
      self.folder = folder
      let certificateURL = folder.appendingPathComponent(Self.certificateFileName)
      let keyURL = folder.appendingPathComponent(Self.privateKeyFileName)
      let extra = try allowedAddresses.map { address in
        guard let bytes = PermittedNames.ipAddressBytes(address) else {
          throw DoppelError.file(
            "\(address) is not an IP address, so the local certificate authority cannot be made to allow it. Give an address such as 192.168.1.20 or fd00::20."
          )
        }
        return (address, bytes)
      }
      let made = try FolderLock.holding(in: folder) { () throws -> (Certificate, P256.Signing.PrivateKey, Bool) in
        let manager = FileManager.default
        switch (manager.fileExists(atPath: certificateURL.path), manager.fileExists(atPath: keyURL.path)) {
        case (true, true):
          try Self.checkModes(folder: folder, key: keyURL)
          let (certificate, key) = try Self.read(certificate: certificateURL, key: keyURL)
          let ranges = PermittedNames.ranges(of: certificate)
          for (address, bytes) in extra where !PermittedNames.permits(address: bytes, in: ranges ?? []) {
            throw DoppelError.file(
              "The local certificate authority in \(folder.path) was made without \(address), and the addresses it signs for are written into its certificate. Remove it (doppel trust --remove, then stop trusting it as that prints), then make a new one that allows every address you need: doppel trust --allow-ip \(address)."
            )
          }
          return (certificate, key, false)
        case (false, false):
          let (certificate, key) = try Self.make(now: now, allowing: extra.map(\.1))
          try SecureFile.create(Data(key.pemRepresentation.utf8), at: keyURL, mode: 0o600)
          try SecureFile.create(Data(try certificate.serializeAsPEM().pemString.utf8), at: certificateURL, mode: 0o644)
          return (certificate, key, true)
        case (let hasCertificate, _):
          let present = hasCertificate ? certificateURL : keyURL
          let missing = hasCertificate ? keyURL : certificateURL
          throw DoppelError.file(
            "The local certificate authority in \(folder.path) is incomplete: \(present.lastPathComponent) is there but \(missing.lastPathComponent) is not. Delete \(present.path) to make a new authority (then trust the new one: doppel trust)."
          )
        }
      }
      (certificate, privateKey, wasCreated) = made
      certificatePEM = try certificate.serializeAsPEM().pemString
      let ranges = PermittedNames.ranges(of: certificate)
      permittedAddressRanges = (ranges ?? []).map(PermittedNames.describe(range:))
      outdatedReason = Self.outdatedReason(certificate, ranges: ranges, folder: folder)
      guard certificate.notValidAfter > now else {
        throw DoppelError.file(
          "The local certificate authority in \(folder.path) expired on \(certificate.notValidAfter). Delete \(certificateURL.lastPathComponent) and \(keyURL.lastPathComponent) there to make a new one, then trust the new one (doppel trust)."
        )
      }
    }

    /// Where the authority is kept unless a folder is given: `$DOPPEL_HOME` when it is set;
    /// otherwise, on macOS (and Apple's other platforms), `~/Library/Application Support/Doppel`;
    /// elsewhere `$XDG_DATA_HOME/doppel`, or `~/.local/share/doppel` when that is not set.
    ///
    /// The platform's part of the choice is in this module's platform room
    /// (`ServerPlatform.dataFolder(userHome:environment:)`).
    ///
    /// - Parameter environment: the environment variables to read (the process's by default).
    public static func defaultFolder(
      environment: [String: String] = ProcessInfo.processInfo.environment
    ) -> URL {
      if let home = environment["DOPPEL_HOME"], !home.isEmpty {
        return URL(fileURLWithPath: home, isDirectory: true)
      }
      let userHome = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()
      return ServerPlatform.dataFolder(userHome: userHome, environment: environment)
    }

    // MARK: Making and reading

    /// A new key and its self-signed certificate, allowing `addresses` besides the default ranges.
    private static func make(now: Date, allowing addresses: [[UInt8]]) throws -> (Certificate, P256.Signing.PrivateKey)
    {
      let key = P256.Signing.PrivateKey()
      let publicKey = Certificate.PublicKey(key.publicKey)
      let stamp = ISO8601DateFormatter().string(from: now)
      let user = ProcessInfo.processInfo.environment["USER"].flatMap { $0.isEmpty ? nil : $0 }
      let name = try DistinguishedName {
        OrganizationName("Doppel local development CA")
        if let user { OrganizationalUnitName(user) }
        CommonName("Doppel local CA \(stamp)")
      }
      let extensions = try Certificate.Extensions {
        Critical(BasicConstraints.isCertificateAuthority(maxPathLength: 0))
        Critical(KeyUsage(keyCertSign: true, cRLSign: true))
        Critical(PermittedNames.constraints(allowing: addresses))
        // What it signs may serve TLS only: verifiers that chain extended key usage (Apple's,
        // Chrome's, OpenSSL's) refuse an e-mail or code-signing certificate under it.
        try ExtendedKeyUsage([.serverAuth])
        SubjectKeyIdentifier(hash: publicKey)
      }
      let certificate = try Certificate(
        version: .v3, serialNumber: Certificate.SerialNumber(), publicKey: publicKey,
        notValidBefore: now.addingTimeInterval(-60 * 60), notValidAfter: now.addingTimeInterval(lifetime),
        issuer: name, subject: name, signatureAlgorithm: .ecdsaWithSHA256, extensions: extensions,
        issuerPrivateKey: Certificate.PrivateKey(key))
      return (certificate, key)
    }

    /// Refuses a key file, or a folder holding it, that other users can read or change.
    private static func checkModes(folder: URL, key keyURL: URL) throws {
      let manager = FileManager.default
      if let mode = (try? manager.attributesOfItem(atPath: folder.path))?[.posixPermissions] as? NSNumber,
        mode.intValue & 0o077 != 0
      {
        throw DoppelError.file(
          "The folder \(folder.path), which holds the local certificate authority's key, is open to other users (mode \(String(mode.intValue & 0o777, radix: 8))), so they could copy the key. Make it yours only: chmod 700 \(shellQuoted(folder.path))"
        )
      }
      if let mode = (try? manager.attributesOfItem(atPath: keyURL.path))?[.posixPermissions] as? NSNumber,
        mode.intValue & 0o077 != 0
      {
        throw DoppelError.file(
          "The local certificate authority's key \(keyURL.path) can be read by other users (mode \(String(mode.intValue & 0o777, radix: 8))), so they could copy it. Make it yours only: chmod 600 \(shellQuoted(keyURL.path))"
        )
      }
    }

    /// `text` quoted for a POSIX shell.
    static func shellQuoted(_ text: String) -> String {
      "'" + text.replacingOccurrences(of: "'", with: #"'\''"#) + "'"
    }

    /// Why an authority made by an older Doppel should be made again, or `nil`.
    private static func outdatedReason(_ certificate: Certificate, ranges: [[UInt8]]?, folder: URL) -> String? {
      var problems: [String] = []
      let days = Int(certificate.notValidAfter.timeIntervalSince(certificate.notValidBefore) / (24 * 60 * 60))
      if Double(days) > lifetime / (24 * 60 * 60) + 1 { problems.append("it is valid for \(days) days") }
      if ranges == nil || ranges?.isEmpty == true {
        problems.append("it does not limit the IP addresses it signs for")
      }
      if (try? certificate.extensions.extendedKeyUsage) == nil {
        problems.append("it does not limit what it signs for to servers (e-mail and code signing are not ruled out)")
      }
      guard !problems.isEmpty else { return nil }
      return
        "The local certificate authority in \(folder.path) was made by an older doppel: \(problems.joined(separator: "; ")). A copy of its key could sign for more than this computer. Make a new one: doppel trust --remove (and stop trusting the old one as it prints), then doppel trust, and trust the new one."
    }

    /// Deletes the authority kept in `folder`: its key, its certificate and its lock file (the
    /// folder too when nothing else is in it). Trust given to it elsewhere (a keychain, a
    /// simulator, a device) stays until you remove it there: `doppel trust --remove` prints how.
    ///
    /// - Returns: the files deleted (none when the folder held no authority).
    /// - Throws: `DoppelError` naming a file that could not be deleted.
    @discardableResult
    public static func remove(folder: URL) throws -> [URL] {
      let manager = FileManager.default
      var removed: [URL] = []
      for name in [privateKeyFileName, certificateFileName, ".lock"] {
        let url = folder.appendingPathComponent(name)
        guard manager.fileExists(atPath: url.path) else { continue }
        do {
          try manager.removeItem(at: url)
        } catch {
          throw DoppelError.file(
            "Could not delete \(url.path): \((error as NSError).localizedDescription). Delete it yourself: rm \(shellQuoted(url.path))"
          )
        }
        if name != ".lock" { removed.append(url) }
      }
      if (try? manager.contentsOfDirectory(atPath: folder.path))?.isEmpty == true {
        try? manager.removeItem(at: folder)
      }
      return removed
    }

    /// The SHA-1 digest of the authority's certificate (DER), in upper-case hexadecimal: how
    /// macOS's `security delete-certificate -Z` names it.
    public var certificateSHA1: String { Self.sha1(of: certificate) }

    /// The SHA-1 digest (as ``certificateSHA1``) of the certificate in the PEM file at `url`.
    ///
    /// - Throws: when the file cannot be read or holds no certificate.
    public static func certificateSHA1(ofPEMFile url: URL) throws -> String {
      try sha1(of: Certificate(pemEncoded: String(decoding: Data(contentsOf: url), as: UTF8.self)))
    }

    private static func sha1(of certificate: Certificate) -> String {
      var serializer = DER.Serializer()
      guard (try? serializer.serialize(certificate)) != nil else { return "" }
      return Insecure.SHA1.hash(data: serializer.serializedBytes).map { String(format: "%02X", $0) }.joined()
    }

    private static func read(certificate certificateURL: URL, key keyURL: URL) throws -> (
      Certificate, P256.Signing.PrivateKey
    ) {
      let certificate: Certificate
      let key: P256.Signing.PrivateKey
      do {
        certificate = try Certificate(pemEncoded: String(decoding: try Data(contentsOf: certificateURL), as: UTF8.self))
      } catch {
        throw DoppelError.file(
          "\(certificateURL.path) is not a PEM certificate (\(error)). Delete it and \(keyURL.lastPathComponent) beside it to make a new local certificate authority, then trust the new one (doppel trust)."
        )
      }
      do {
        key = try P256.Signing.PrivateKey(
          pemRepresentation: String(decoding: try Data(contentsOf: keyURL), as: UTF8.self))
      } catch {
        throw DoppelError.file(
          "\(keyURL.path) is not a P-256 private key in PEM form (\(error)). Delete it and \(certificateURL.lastPathComponent) beside it to make a new local certificate authority, then trust the new one (doppel trust)."
        )
      }
      guard certificate.publicKey == Certificate.PublicKey(key.publicKey) else {
        throw DoppelError.file(
          "\(keyURL.path) is not the key of \(certificateURL.path). Delete both to make a new local certificate authority, then trust the new one (doppel trust)."
        )
      }
      return (certificate, key)
    }
  }
#endif
