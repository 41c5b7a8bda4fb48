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
  /// self-signed certificate valid for ten years, in a folder of your own (see
  /// ``defaultFolder(environment:)``). The key file is created readable by you only (mode 0600);
  /// the certificate file is what you hand to a keychain, a simulator or an emulator.
  ///
  /// The authority signs only for this computer: `localhost` and the names under `.localhost`,
  /// `127.0.0.0/8`, `::1` and `10.0.2.2` (the address at which an Android emulator reaches the
  /// computer it runs on). Its certificate carries a name constraint that permits DNS names under
  /// `localhost` only, so a client that has trusted it refuses a certificate for any real site's
  /// name that someone who copied its key (which is on disk) might sign. IP addresses are limited
  /// by Doppel alone, not by the certificate: BoringSSL-based clients (SwiftNIO SSL,
  /// AsyncHTTPClient) refuse every certificate naming an IP address under an issuer that constrains
  /// IP addresses. To start over, delete the folder's two files and trust the new authority.
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

    /// How long a new authority's certificate is valid: ten years.
    static let lifetime: TimeInterval = 10 * 365 * 24 * 60 * 60

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
    /// - Throws: `DoppelError` when the folder cannot be made or written, when it holds only one
    ///   of the two files, or files that are not an authority's certificate and its key, or an
    ///   authority that has expired; the message says which file and how to start over.
    public init(folder: URL, now: Date = Date()) throws {
      self.folder = folder
      let certificateURL = folder.appendingPathComponent(Self.certificateFileName)
      let keyURL = folder.appendingPathComponent(Self.privateKeyFileName)
      let made = try FolderLock.holding(in: folder) { () throws -> (Certificate, P256.Signing.PrivateKey, Bool) in
        let manager = FileManager.default
        switch (manager.fileExists(atPath: certificateURL.path), manager.fileExists(atPath: keyURL.path)) {
        case (true, true):
          let (certificate, key) = try Self.read(certificate: certificateURL, key: keyURL)
          return (certificate, key, false)
        case (false, false):
          let (certificate, key) = try Self.make(now: now)
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
    /// The choice is one small function selected with `#if canImport(Darwin)`, kept here rather
    /// than in the core's platform seam: it concerns the server alone, and no API differs.
    ///
    /// - Parameter environment: the environment variables to read (the process's by default).
    public static func defaultFolder(
      environment: [String: String] = ProcessInfo.processInfo.environment
    ) -> URL {
      if let home = environment["DOPPEL_HOME"], !home.isEmpty {
        return URL(fileURLWithPath: home, isDirectory: true)
      }
      let userHome = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()
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

    // MARK: Making and reading

    /// A new key and its self-signed certificate.
    private static func make(now: Date) throws -> (Certificate, P256.Signing.PrivateKey) {
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
        Critical(PermittedNames.constraints)
        SubjectKeyIdentifier(hash: publicKey)
      }
      let certificate = try Certificate(
        version: .v3, serialNumber: Certificate.SerialNumber(), publicKey: publicKey,
        notValidBefore: now.addingTimeInterval(-60 * 60), notValidAfter: now.addingTimeInterval(lifetime),
        issuer: name, subject: name, signatureAlgorithm: .ecdsaWithSHA256, extensions: extensions,
        issuerPrivateKey: Certificate.PrivateKey(key))
      return (certificate, key)
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
