#if TLS
  import Crypto
  import Doppel
  import DoppelServer
  import Foundation
  import SwiftASN1
  import Testing
  import X509
  @_spi(DoppelInternals) import DoppelToolkit

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

    @Test func theAuthorityIsAConstrained825DayCAForServersOnly() throws {
      let folder = temporaryFolder()
      defer { try? FileManager.default.removeItem(at: folder) }
      let now = Date()
      let authority = try LocalCertificateAuthority(folder: folder, now: now)
      #expect(authority.outdatedReason == nil)
      let certificate = try Certificate(pemEncoded: authority.certificatePEM)
      #expect(certificate.issuer == certificate.subject)
      #expect(try certificate.extensions.basicConstraints == .isCertificateAuthority(maxPathLength: 0))
      #expect(certificate.extensions[oid: .X509ExtensionID.basicConstraints]?.critical == true)
      let usage = try #require(try certificate.extensions.keyUsage)
      #expect(usage.keyCertSign && usage.cRLSign && !usage.digitalSignature)
      #expect(certificate.extensions[oid: .X509ExtensionID.keyUsage]?.critical == true)
      let constraints = try #require(try certificate.extensions.nameConstraints)
      #expect(Array(constraints.permittedDNSDomains) == ["localhost"])
      #expect(
        constraints.permittedIPRanges.map { Array($0.bytes) } == [
          [127, 0, 0, 0, 255, 0, 0, 0],
          Array(repeating: 0, count: 15) + [1] + Array(repeating: 0xFF, count: 16),
          [10, 0, 2, 2, 255, 255, 255, 255],
        ])
      #expect(authority.permittedAddressRanges == ["127.0.0.0/8", "::1/128", "10.0.2.2/32"])
      #expect(constraints.excludedDNSDomains.isEmpty && constraints.excludedIPRanges.isEmpty)
      #expect(certificate.extensions[oid: .X509ExtensionID.nameConstraints]?.critical == true)
      #expect(try certificate.extensions.extendedKeyUsage.map(Array.init) == [.serverAuth])
      let days = certificate.notValidAfter.timeIntervalSince(now) / (24 * 60 * 60)
      #expect(days > 824.9 && days < 825.1)
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

    /// A leaf signed with a copy of the authority's key: for `names`, with `usages`.
    private func forged(
      by authority: LocalCertificateAuthority, names: [GeneralName], usages: [ExtendedKeyUsage.Usage] = [.serverAuth]
    ) throws -> Certificate {
      let ca = try Certificate(pemEncoded: authority.certificatePEM)
      let copiedKey = try P256.Signing.PrivateKey(
        pemRepresentation: String(contentsOf: authority.privateKeyFile, encoding: .utf8))
      let key = P256.Signing.PrivateKey()
      return try Certificate(
        version: .v3, serialNumber: Certificate.SerialNumber(), publicKey: Certificate.PublicKey(key.publicKey),
        notValidBefore: Date().addingTimeInterval(-60), notValidAfter: Date().addingTimeInterval(24 * 60 * 60),
        issuer: ca.subject, subject: try DistinguishedName { CommonName("forged") },
        signatureAlgorithm: .ecdsaWithSHA256,
        extensions: try Certificate.Extensions {
          Critical(BasicConstraints.notCertificateAuthority)
          try ExtendedKeyUsage(usages)
          SubjectAlternativeNames(names)
        }, issuerPrivateKey: Certificate.PrivateKey(copiedKey))
    }

    private static func address(_ bytes: [UInt8]) -> GeneralName {
      .ipAddress(ASN1OctetString(contentBytes: bytes[...]))
    }

    /// A leaf for an IP address beyond this computer, signed with a copy of the key: refused by a
    /// client that checks name constraints (RFC 5280), and never issued by the authority.
    @Test(
      arguments: [
        ("1.1.1.1", [1, 1, 1, 1]), ("192.168.1.1", [192, 168, 1, 1]), ("::2", [UInt8](repeating: 0, count: 15) + [2]),
      ] as [(String, [UInt8])])
    func aCopiedKeyCannotSignForAnAddressElsewhere(_ address: String, _ bytes: [UInt8]) async throws {
      let folder = temporaryFolder()
      defer { try? FileManager.default.removeItem(at: folder) }
      let authority = try LocalCertificateAuthority(folder: folder)
      let ca = try Certificate(pemEncoded: authority.certificatePEM)
      let leaf = try forged(by: authority, names: [Self.address(bytes)])
      #expect(ca.publicKey.isValidSignature(leaf.signature, for: leaf))
      #expect(!(await validate(leaf, authority: ca, host: nil, ip: address)))
      #expect(!authority.permits(address))
      let error = try #require(throws: DoppelError.self) { try authority.makeServerCertificate(for: [address]) }
      #expect(
        error.message
          == "The local certificate authority may not sign for \(address): it may sign only for localhost and names under .localhost, 127.0.0.0/8, ::1, and 10.0.2.2 (where an Android emulator reaches this computer), so that its key, which is kept on disk, cannot be used to impersonate a real site. For an address of this computer on your network, make a new authority that allows it: doppel trust --remove, then doppel trust --allow-ip \(address)."
      )
      // A loopback address is still signed for, and accepted.
      let loopback = try forged(by: authority, names: [Self.address([127, 0, 0, 1])])
      #expect(await validate(loopback, authority: ca, host: nil, ip: "127.0.0.1"))
    }

    @Test func anAddressAllowedWhenTheAuthorityIsMadeIsSignedForAndNoOther() async throws {
      let folder = temporaryFolder()
      defer { try? FileManager.default.removeItem(at: folder) }
      let authority = try LocalCertificateAuthority(folder: folder, allowedAddresses: ["192.168.1.20"])
      #expect(authority.permittedAddressRanges == ["127.0.0.0/8", "::1/128", "10.0.2.2/32", "192.168.1.20/32"])
      let ca = try Certificate(pemEncoded: authority.certificatePEM)
      let leaf = try Certificate(pemEncoded: authority.makeServerCertificate(for: ["192.168.1.20"]).certificatePEM)
      #expect(await validate(leaf, authority: ca, host: nil, ip: "192.168.1.20"))
      #expect(await validate(leaf, authority: ca, host: nil, ip: "127.0.0.1"))
      let neighbour = try forged(by: authority, names: [Self.address([192, 168, 1, 21])])
      #expect(!(await validate(neighbour, authority: ca, host: nil, ip: "192.168.1.21")))
      let error = try #require(throws: DoppelError.self) { try authority.makeServerCertificate(for: ["192.168.1.21"]) }
      #expect(
        error.message.contains(
          "it may sign only for localhost and names under .localhost, 127.0.0.0/8, ::1, and 10.0.2.2 (where an Android emulator reaches this computer) (and, as it was made to allow, 192.168.1.20/32)"
        ))

      // Reopened, it keeps what it allows; asking for another address says how to start over.
      #expect(try LocalCertificateAuthority(folder: folder, allowedAddresses: ["192.168.1.20"]).wasCreated == false)
      let refused = try #require(throws: DoppelError.self) {
        try LocalCertificateAuthority(folder: folder, allowedAddresses: ["192.168.1.21"])
      }
      #expect(
        refused.message
          == "The local certificate authority in \(folder.path) was made without 192.168.1.21, and the addresses it signs for are written into its certificate. Remove it (doppel trust --remove, then stop trusting it as that prints), then make a new one that allows every address you need: doppel trust --allow-ip 192.168.1.21."
      )
      let notAnAddress = try #require(throws: DoppelError.self) {
        try LocalCertificateAuthority(folder: folder, allowedAddresses: ["printer.lan"])
      }
      #expect(
        notAnAddress.message
          == "printer.lan is not an IP address, so the local certificate authority cannot be made to allow it. Give an address such as 192.168.1.20 or fd00::20."
      )
    }

    /// What Apple's, Chrome's and OpenSSL's verifiers do with extended key usage: every
    /// certificate in the chain that states one must allow `purpose`.
    struct ChainedExtendedKeyUsagePolicy: VerifierPolicy {
      let purpose: ExtendedKeyUsage.Usage
      var verifyingCriticalExtensions: [ASN1ObjectIdentifier] { [] }

      func chainMeetsPolicyRequirements(chain: UnverifiedCertificateChain) async -> PolicyEvaluationResult {
        for certificate in chain {
          guard let usages = try? certificate.extensions.extendedKeyUsage else { continue }
          guard usages.contains(purpose) else {
            return .failsToMeetPolicy(reason: "\(certificate.subject) does not allow \(purpose)")
          }
        }
        return .meetsPolicy
      }
    }

    /// A leaf for e-mail (S/MIME) or code signing, signed with a copy of the key: refused for that
    /// purpose, because the authority is for server authentication only.
    @Test(arguments: [ExtendedKeyUsage.Usage.emailProtection, .codeSigning])
    func aCopiedKeyCannotSignForEmailOrCode(_ usage: ExtendedKeyUsage.Usage) async throws {
      let folder = temporaryFolder()
      defer { try? FileManager.default.removeItem(at: folder) }
      let authority = try LocalCertificateAuthority(folder: folder)
      let ca = try Certificate(pemEncoded: authority.certificatePEM)
      func verifies(_ leaf: Certificate, for purpose: ExtendedKeyUsage.Usage) async -> Bool {
        var verifier = Verifier(rootCertificates: CertificateStore([ca])) {
          RFC5280Policy()
          ChainedExtendedKeyUsagePolicy(purpose: purpose)
        }
        if case .validCertificate = await verifier.validate(leaf: leaf, intermediates: CertificateStore()) {
          return true
        }
        return false
      }
      let leaf = try forged(by: authority, names: [.dnsName("localhost")], usages: [usage])
      #expect(!(await verifies(leaf, for: usage)))
      let server = try forged(by: authority, names: [.dnsName("localhost")])
      #expect(await verifies(server, for: .serverAuth))
    }

    @Test func aKeyOrFolderOthersCanReadIsRefused() throws {
      let folder = temporaryFolder()
      defer { try? FileManager.default.removeItem(at: folder) }
      let authority = try LocalCertificateAuthority(folder: folder)
      let key = authority.privateKeyFile.path
      #expect(chmod(key, 0o644) == 0)
      let readable = try #require(throws: DoppelError.self) { try LocalCertificateAuthority(folder: folder) }
      #expect(
        readable.message
          == "The local certificate authority's key \(key) can be read by other users (mode 644), so they could copy it. Make it yours only: chmod 600 '\(key)'"
      )
      #expect(chmod(key, 0o600) == 0)
      #expect(chmod(folder.path, 0o755) == 0)
      let open = try #require(throws: DoppelError.self) { try LocalCertificateAuthority(folder: folder) }
      #expect(
        open.message
          == "The folder \(folder.path), which holds the local certificate authority's key, is open to other users (mode 755), so they could copy the key. Make it yours only: chmod 700 '\(folder.path)'"
      )
      #expect(chmod(folder.path, 0o700) == 0)
      #expect(try LocalCertificateAuthority(folder: folder).certificatePEM == authority.certificatePEM)
    }

    @Test func removeDeletesTheKeyAndTheCertificate() throws {
      let folder = temporaryFolder()
      defer { try? FileManager.default.removeItem(at: folder) }
      let authority = try LocalCertificateAuthority(folder: folder)
      let removed = try LocalCertificateAuthority.remove(folder: folder)
      #expect(removed.map(\.lastPathComponent) == ["doppel-ca-key.pem", "doppel-ca.pem"])
      #expect(!FileManager.default.fileExists(atPath: authority.privateKeyFile.path))
      #expect(!FileManager.default.fileExists(atPath: authority.certificateFile.path))
      #expect(try LocalCertificateAuthority.remove(folder: folder).isEmpty)
      let next = try LocalCertificateAuthority(folder: folder)
      #expect(next.wasCreated && next.certificatePEM != authority.certificatePEM)
    }

    /// An authority as an older Doppel made it (ten years, no IP limit, no usage limit) still
    /// opens, and says what is wrong and how to make a new one.
    @Test func anAuthorityMadeByAnOlderDoppelIsReported() throws {
      let folder = temporaryFolder()
      defer { try? FileManager.default.removeItem(at: folder) }
      try FileManager.default.createDirectory(
        at: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
      let key = P256.Signing.PrivateKey()
      let publicKey = Certificate.PublicKey(key.publicKey)
      let name = try DistinguishedName { CommonName("Doppel local CA (old)") }
      let now = Date()
      let old = try Certificate(
        version: .v3, serialNumber: Certificate.SerialNumber(), publicKey: publicKey,
        notValidBefore: now.addingTimeInterval(-60 * 60), notValidAfter: now.addingTimeInterval(3650 * 24 * 60 * 60),
        issuer: name, subject: name, signatureAlgorithm: .ecdsaWithSHA256,
        extensions: try Certificate.Extensions {
          Critical(BasicConstraints.isCertificateAuthority(maxPathLength: 0))
          Critical(KeyUsage(keyCertSign: true, cRLSign: true))
          Critical(NameConstraints(permittedDNSDomains: ["localhost"]))
          SubjectKeyIdentifier(hash: publicKey)
        }, issuerPrivateKey: Certificate.PrivateKey(key))
      let keyURL = folder.appendingPathComponent(LocalCertificateAuthority.privateKeyFileName)
      try Data(key.pemRepresentation.utf8).write(to: keyURL)
      #expect(chmod(keyURL.path, 0o600) == 0)
      try Data(try old.serializeAsPEM().pemString.utf8)
        .write(to: folder.appendingPathComponent(LocalCertificateAuthority.certificateFileName))
      let authority = try LocalCertificateAuthority(folder: folder)
      #expect(!authority.wasCreated)
      #expect(
        authority.outdatedReason
          == "The local certificate authority in \(folder.path) was made by an older doppel: it is valid for 3650 days; it does not limit the IP addresses it signs for; it does not limit what it signs for to servers (e-mail and code signing are not ruled out). A copy of its key could sign for more than this computer. Make a new one: doppel trust --remove (and stop trusting the old one as it prints), then doppel trust, and trust the new one."
      )
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
