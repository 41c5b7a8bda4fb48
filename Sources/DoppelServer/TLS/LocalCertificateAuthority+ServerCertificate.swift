#if TLS
  import Crypto
  import Doppel
  import Foundation
  import X509

  extension LocalCertificateAuthority {
    /// A server certificate the authority signed, with its private key: made in memory each time
    /// the stub server starts with HTTPS, and never written to disk.
    public struct ServerCertificate: Sendable {
      /// The certificate in PEM form.
      public let certificatePEM: String
      /// The certificate's private key (P-256) in PEM form.
      public let privateKeyPEM: String
      /// The names it is valid for, DNS names and IP addresses, as given.
      public let names: [String]
    }

    /// The names every server certificate is valid for: `localhost`, `127.0.0.1` and `::1`.
    public static let defaultNames = ["localhost", "127.0.0.1", "::1"]

    /// How long a server certificate is valid: 390 days from an hour before it was made, within
    /// the 397 days Apple's platforms and browsers accept (a new one is made each time the server
    /// starts).
    static let serverLifetime: TimeInterval = 390 * 24 * 60 * 60

    /// Makes a server certificate for ``defaultNames`` and `names` that clients trusting this
    /// authority accept, including under App Transport Security: a P-256 key, an ECDSA signature
    /// with SHA-256, every name in the subject alternative names, the server authentication
    /// extended key usage, and a validity of 390 days.
    ///
    /// - Parameters:
    ///   - names: more DNS names or IP addresses for the certificate (`10.0.2.2`, `api.localhost`);
    ///     each must be one the authority may sign for (see ``permits(_:)-method``).
    ///   - now: the time it is made at.
    /// - Throws: `DoppelError` when a name is neither a DNS name nor an IP address, or is one the
    ///   authority may not sign for; the message lists what it may.
    public func makeServerCertificate(for names: [String] = [], now: Date = Date()) throws -> ServerCertificate {
      try makeServerCertificate(for: names, now: now, dnsNamesOnly: false)
    }

    /// With `dnsNamesOnly`, the certificate names none of the IP addresses: the one a client that
    /// sent a name (SNI) gets, which BoringSSL accepts under an authority that constrains IP
    /// addresses (see ``PermittedNames/constraints(allowing:)``).
    func makeServerCertificate(for names: [String], now: Date, dnsNamesOnly: Bool) throws -> ServerCertificate {
      var all: [String] = []
      var generalNames: [GeneralName] = []
      let ranges = PermittedNames.ranges(of: certificate).flatMap { $0.isEmpty ? nil : $0 } ?? PermittedNames.ranges
      for name in Self.defaultNames + names {
        let parsed = try PermittedNames.parse(name, ranges: ranges)
        if dnsNamesOnly, case .ipAddress = parsed { continue }
        guard !generalNames.contains(parsed) else { continue }
        all.append(name)
        generalNames.append(parsed)
      }
      let key = P256.Signing.PrivateKey()
      let publicKey = Certificate.PublicKey(key.publicKey)
      let subject = try DistinguishedName {
        OrganizationName("Doppel stub server")
        CommonName("localhost")
      }
      let authorityKeyID = try certificate.extensions.subjectKeyIdentifier?.keyIdentifier
      let extensions = try Certificate.Extensions {
        Critical(BasicConstraints.notCertificateAuthority)
        Critical(KeyUsage(digitalSignature: true))
        try ExtendedKeyUsage([.serverAuth])
        SubjectAlternativeNames(generalNames)
        SubjectKeyIdentifier(hash: publicKey)
        if let authorityKeyID { AuthorityKeyIdentifier(keyIdentifier: authorityKeyID) }
      }
      let notAfter = min(now.addingTimeInterval(Self.serverLifetime), certificate.notValidAfter)
      let leaf = try Certificate(
        version: .v3, serialNumber: Certificate.SerialNumber(), publicKey: publicKey,
        notValidBefore: now.addingTimeInterval(-60 * 60), notValidAfter: notAfter,
        issuer: certificate.subject, subject: subject, signatureAlgorithm: .ecdsaWithSHA256,
        extensions: extensions, issuerPrivateKey: Certificate.PrivateKey(privateKey))
      return ServerCertificate(
        certificatePEM: try leaf.serializeAsPEM().pemString, privateKeyPEM: key.pemRepresentation, names: all)
    }

    /// Whether the authority signs for `name`, a DNS name or an IP address (IPv6 with or without
    /// brackets): `localhost` and the names under `.localhost`, `127.0.0.0/8`, `::1`, and
    /// `10.0.2.2`, at which an Android emulator reaches the computer it runs on.
    public static func permits(_ name: String) -> Bool {
      (try? PermittedNames.parse(name)) != nil
    }

    /// Whether this authority signs for `name`: as ``permits(_:)-type.method``, and the IP addresses it was
    /// made to allow (`allowedAddresses`).
    public func permits(_ name: String) -> Bool {
      let ranges = PermittedNames.ranges(of: certificate).flatMap { $0.isEmpty ? nil : $0 } ?? PermittedNames.ranges
      return (try? PermittedNames.parse(name, ranges: ranges)) != nil
    }
  }
#endif
