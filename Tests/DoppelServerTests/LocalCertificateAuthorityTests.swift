#if TLS
  import Crypto
  import Doppel
  import DoppelServer
  import Foundation
  import SwiftASN1
  import Testing
  import X509

  /// The local certificate authority and the server certificates it signs, read back as a client
  /// reads them. Each test keeps its authority in a temporary folder of its own.
  @Suite struct LocalCertificateAuthorityTests {
    private func temporaryFolder() -> URL {
      FileManager.default.temporaryDirectory.appendingPathComponent("doppel-ca-\(UUID().uuidString)")
    }

    @Test func isMadeOnceThenReused() throws {
      let folder = temporaryFolder()
      defer { try? FileManager.default.removeItem(at: folder) }
      let first = try LocalCertificateAuthority(folder: folder)
      #expect(first.wasCreated)
      let second = try LocalCertificateAuthority(folder: folder)
      #expect(!second.wasCreated)
      #expect(second.certificatePEM == first.certificatePEM)
      let onDisk = try String(contentsOf: first.certificateFile, encoding: .utf8)
      #expect(onDisk == first.certificatePEM)
      #expect(first.certificateFile.lastPathComponent == "doppel-ca.pem")
      #expect(first.privateKeyFile.lastPathComponent == "doppel-ca-key.pem")
    }

    @Test func openersAtTheSameTimeAgreeOnOneAuthority() throws {
      let folder = temporaryFolder()
      defer { try? FileManager.default.removeItem(at: folder) }
      // Threads of Dispatch's own, which may block on the folder's lock without holding up the
      // tasks of other tests.
      let opened = Locked<[Result<LocalCertificateAuthority, any Error>]>([])
      DispatchQueue.concurrentPerform(iterations: 4) { _ in
        let result = Result { try LocalCertificateAuthority(folder: folder) }
        opened.withLock { $0.append(result) }
      }
      let authorities = try opened.withLock { $0 }.map { try $0.get() }
      #expect(authorities.count == 4)
      #expect(Set(authorities.map(\.certificatePEM)).count == 1)
      #expect(authorities.filter(\.wasCreated).count == 1)
    }

    @Test func theKeyIsReadableByItsOwnerOnly() throws {
      let folder = temporaryFolder()
      defer { try? FileManager.default.removeItem(at: folder) }
      let authority = try LocalCertificateAuthority(folder: folder)
      let key = try FileManager.default.attributesOfItem(atPath: authority.privateKeyFile.path)
      #expect((key[.posixPermissions] as? NSNumber)?.intValue == 0o600)
      let made = try FileManager.default.attributesOfItem(atPath: folder.path)
      #expect((made[.posixPermissions] as? NSNumber)?.intValue == 0o700)
      let keyText = try String(contentsOf: authority.privateKeyFile, encoding: .utf8)
      #expect(keyText.hasPrefix("-----BEGIN PRIVATE KEY-----"))
      #expect(!authority.certificatePEM.contains("PRIVATE KEY"))
    }

    @Test func theAuthorityIsAConstrainedTenYearCA() throws {
      let folder = temporaryFolder()
      defer { try? FileManager.default.removeItem(at: folder) }
      let now = Date()
      let authority = try LocalCertificateAuthority(folder: folder, now: now)
      let certificate = try Certificate(pemEncoded: authority.certificatePEM)
      #expect(certificate.issuer == certificate.subject)
      #expect(try certificate.extensions.basicConstraints == .isCertificateAuthority(maxPathLength: 0))
      #expect(certificate.extensions[oid: .X509ExtensionID.basicConstraints]?.critical == true)
      let usage = try #require(try certificate.extensions.keyUsage)
      #expect(usage.keyCertSign && usage.cRLSign && !usage.digitalSignature)
      #expect(certificate.extensions[oid: .X509ExtensionID.keyUsage]?.critical == true)
      let constraints = try #require(try certificate.extensions.nameConstraints)
      #expect(Array(constraints.permittedDNSDomains) == ["localhost"])
      // No IP ranges: BoringSSL refuses every IP address under an issuer that constrains them.
      #expect(constraints.permittedIPRanges.isEmpty)
      #expect(constraints.excludedDNSDomains.isEmpty && constraints.excludedIPRanges.isEmpty)
      #expect(certificate.extensions[oid: .X509ExtensionID.nameConstraints]?.critical == true)
      let years = certificate.notValidAfter.timeIntervalSince(now) / (365 * 24 * 60 * 60)
      #expect(years > 9.99 && years < 10.01)
      #expect(certificate.signatureAlgorithm == .ecdsaWithSHA256)
    }

    @Test func aServerCertificateMeetsAppTransportSecurity() throws {
      let folder = temporaryFolder()
      defer { try? FileManager.default.removeItem(at: folder) }
      let authority = try LocalCertificateAuthority(folder: folder)
      let now = Date()
      let issued = try authority.makeServerCertificate(for: ["10.0.2.2", "api.localhost"], now: now)
      #expect(issued.names == ["localhost", "127.0.0.1", "::1", "10.0.2.2", "api.localhost"])
      let leaf = try Certificate(pemEncoded: issued.certificatePEM)
      let ca = try Certificate(pemEncoded: authority.certificatePEM)

      // Signed by the authority, with ECDSA and SHA-256.
      #expect(leaf.issuer == ca.subject)
      #expect(ca.publicKey.isValidSignature(leaf.signature, for: leaf))
      #expect(leaf.signatureAlgorithm == .ecdsaWithSHA256)
      let authorityKeyID = try leaf.extensions.authorityKeyIdentifier?.keyIdentifier
      let subjectKeyID = try ca.extensions.subjectKeyIdentifier?.keyIdentifier
      #expect(authorityKeyID != nil && authorityKeyID == subjectKeyID)

      // Every name in the subject alternative names.
      let names = try #require(try leaf.extensions.subjectAlternativeNames)
      #expect(
        Array(names) == [
          .dnsName("localhost"), .ipAddress(ASN1OctetString(contentBytes: [127, 0, 0, 1])),
          .ipAddress(ASN1OctetString(contentBytes: Array(repeating: 0, count: 15) + [1])),
          .ipAddress(ASN1OctetString(contentBytes: [10, 0, 2, 2])), .dnsName("api.localhost"),
        ])

      // For servers only, not a CA.
      #expect(try leaf.extensions.extendedKeyUsage.map(Array.init) == [.serverAuth])
      #expect(try leaf.extensions.basicConstraints == .notCertificateAuthority)
      let usage = try #require(try leaf.extensions.keyUsage)
      #expect(usage.digitalSignature && !usage.keyCertSign)

      // At most 397 days, valid now.
      #expect(leaf.notValidBefore <= now && leaf.notValidAfter > now)
      #expect(leaf.notValidAfter.timeIntervalSince(leaf.notValidBefore) <= 397 * 24 * 60 * 60)

      // A P-256 key: ECC of 256 bits.
      #expect(P256.Signing.PublicKey(leaf.publicKey) != nil)
      #expect(issued.privateKeyPEM.hasPrefix("-----BEGIN PRIVATE KEY-----"))
    }

    /// Validates `leaf` against the authority alone, as a client would for `host` or `ip`.
    private func validate(_ leaf: Certificate, authority: Certificate, host: String?, ip: String?) async -> Bool {
      var verifier = Verifier(rootCertificates: CertificateStore([authority])) {
        RFC5280Policy()
        ServerIdentityPolicy(serverHostname: host, serverIP: ip)
      }
      if case .validCertificate = await verifier.validate(leaf: leaf, intermediates: CertificateStore()) {
        return true
      }
      return false
    }

    @Test func aServerCertificateValidatesForEachOfItsNames() async throws {
      let folder = temporaryFolder()
      defer { try? FileManager.default.removeItem(at: folder) }
      let authority = try LocalCertificateAuthority(folder: folder)
      let ca = try Certificate(pemEncoded: authority.certificatePEM)
      let leaf = try Certificate(
        pemEncoded: authority.makeServerCertificate(for: ["10.0.2.2", "api.localhost"]).certificatePEM)
      #expect(await validate(leaf, authority: ca, host: "localhost", ip: nil))
      #expect(await validate(leaf, authority: ca, host: "api.localhost", ip: nil))
      #expect(await validate(leaf, authority: ca, host: nil, ip: "127.0.0.1"))
      #expect(await validate(leaf, authority: ca, host: nil, ip: "::1"))
      #expect(await validate(leaf, authority: ca, host: nil, ip: "10.0.2.2"))
      #expect(!(await validate(leaf, authority: ca, host: "example.com", ip: nil)))
    }

    /// What someone who copied the key file could sign: a certificate for a real site's name,
    /// which a client trusting the authority refuses, because of its name constraint.
    @Test(arguments: ["bank.example.com", "localhost.example.com", "localhostx"])
    func aCopiedKeyCannotSignForARealSitesName(_ name: String) async throws {
      let folder = temporaryFolder()
      defer { try? FileManager.default.removeItem(at: folder) }
      let authority = try LocalCertificateAuthority(folder: folder)
      let ca = try Certificate(pemEncoded: authority.certificatePEM)
      let copiedKey = try P256.Signing.PrivateKey(
        pemRepresentation: String(contentsOf: authority.privateKeyFile, encoding: .utf8))
      let key = P256.Signing.PrivateKey()
      let forged = try Certificate(
        version: .v3, serialNumber: Certificate.SerialNumber(), publicKey: Certificate.PublicKey(key.publicKey),
        notValidBefore: Date().addingTimeInterval(-60), notValidAfter: Date().addingTimeInterval(24 * 60 * 60),
        issuer: ca.subject, subject: try DistinguishedName { CommonName("forged") },
        signatureAlgorithm: .ecdsaWithSHA256,
        extensions: try Certificate.Extensions {
          Critical(BasicConstraints.notCertificateAuthority)
          try ExtendedKeyUsage([.serverAuth])
          SubjectAlternativeNames([.dnsName(name)])
        }, issuerPrivateKey: Certificate.PrivateKey(copiedKey))
      #expect(ca.publicKey.isValidSignature(forged.signature, for: forged))
      #expect(!(await validate(forged, authority: ca, host: name, ip: nil)))
    }

    @Test func eachStartGetsANewServerCertificate() throws {
      let folder = temporaryFolder()
      defer { try? FileManager.default.removeItem(at: folder) }
      let authority = try LocalCertificateAuthority(folder: folder)
      let first = try authority.makeServerCertificate()
      let second = try authority.makeServerCertificate()
      #expect(first.certificatePEM != second.certificatePEM)
      #expect(first.privateKeyPEM != second.privateKeyPEM)
      let files = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { !$0.hasPrefix(".") }
      #expect(files.sorted() == ["doppel-ca-key.pem", "doppel-ca.pem"])
    }

    @Test(arguments: ["example.com", "192.168.1.10", "::2", "localhost.example.com", "10.0.2.3"])
    func namesBeyondThisComputerAreRefused(_ name: String) throws {
      #expect(!LocalCertificateAuthority.permits(name))
      let folder = temporaryFolder()
      defer { try? FileManager.default.removeItem(at: folder) }
      let authority = try LocalCertificateAuthority(folder: folder)
      let error = try #require(throws: DoppelError.self) { try authority.makeServerCertificate(for: [name]) }
      #expect(error.message.contains("may not sign for \(name)"))
    }

    @Test(arguments: ["localhost", "api.localhost", "127.0.0.2", "[::1]", "10.0.2.2", "LOCALHOST"])
    func namesOnThisComputerArePermitted(_ name: String) {
      #expect(LocalCertificateAuthority.permits(name))
    }

    @Test func anIncompleteFolderSaysHowToStartOver() throws {
      let folder = temporaryFolder()
      defer { try? FileManager.default.removeItem(at: folder) }
      let authority = try LocalCertificateAuthority(folder: folder)
      try FileManager.default.removeItem(at: authority.privateKeyFile)
      let error = try #require(throws: DoppelError.self) { try LocalCertificateAuthority(folder: folder) }
      #expect(
        error.message
          == "The local certificate authority in \(folder.path) is incomplete: doppel-ca.pem is there but doppel-ca-key.pem is not. Delete \(authority.certificateFile.path) to make a new authority (then trust the new one: doppel trust)."
      )
    }

    @Test func theDefaultFolder() {
      #expect(
        LocalCertificateAuthority.defaultFolder(environment: ["DOPPEL_HOME": "/tmp/d", "HOME": "/home/u"]).path
          == "/tmp/d")
      #if canImport(Darwin)
        #expect(
          LocalCertificateAuthority.defaultFolder(environment: ["HOME": "/Users/u"]).path
            == "/Users/u/Library/Application Support/Doppel")
      #else
        #expect(
          LocalCertificateAuthority.defaultFolder(environment: ["HOME": "/home/u"]).path
            == "/home/u/.local/share/doppel")
        #expect(
          LocalCertificateAuthority.defaultFolder(environment: ["HOME": "/home/u", "XDG_DATA_HOME": "/data"]).path
            == "/data/doppel")
      #endif
    }
  }
#endif
