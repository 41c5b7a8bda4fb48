#if Server && TLS
  import ArgumentParser
  import Doppel
  import DoppelServer
  import Foundation

  // `--tls` with the TLS trait. Without it, TLSOptions+WithoutTrait.swift declares the same names
  // and `--tls` is refused.

  extension TLSOptions {
    /// The authority that signs the server's certificate.
    typealias Authority = LocalCertificateAuthority

    /// Checks the `--tls-name`s against what the authority may sign for.
    func checkNames() throws {
      // An IP address may be one the authority was made to allow (doppel trust --allow-ip): it
      // is checked against the authority itself when the server starts.
      for name in names where !LocalCertificateAuthority.permits(name) && !Self.isIPAddress(name) {
        throw ValidationError(
          "--tls-name \(name) is not a name the local certificate authority may sign for: it signs only for localhost and names under .localhost, 127.0.0.0/8, ::1 and 10.0.2.2 (an Android emulator's address for this computer), so that its key, kept on disk, cannot be used for a real site."
        )
      }
    }

    /// Sets HTTPS up in `configuration` when `--tls` is given; returns the authority then.
    func apply(to configuration: inout StubServer.Configuration) throws -> LocalCertificateAuthority? {
      guard tls else { return nil }
      let authority = try LocalCertificateAuthority(folder: LocalCertificateAuthority.defaultFolder())
      for name in names where !authority.permits(name) {
        throw ValidationError(
          "--tls-name \(name) is not an address the local certificate authority may sign for: it signs only for localhost and names under .localhost and \(authority.permittedAddressRanges.joined(separator: ", ")). For an address of this computer on your network, make a new authority that allows it: doppel trust --remove, then doppel trust --allow-ip \(name)."
        )
      }
      if let outdated = authority.outdatedReason { Console.error(outdated) }
      configuration.tls = StubServer.TLS(authority: authority, additionalNames: names)
      return authority
    }

    /// Whether `name` is an IPv4 or IPv6 address (in brackets or not).
    static func isIPAddress(_ name: String) -> Bool {
      let bare = name.hasPrefix("[") && name.hasSuffix("]") ? String(name.dropFirst().dropLast()) : name
      return bare.contains(":")
        || (bare.split(separator: ".").count == 4 && bare.allSatisfy { $0.isNumber || $0 == "." })
    }

    /// The line `doppel serve --tls` prints about the authority.
    static func authorityLine(_ authority: LocalCertificateAuthority) -> String {
      let made =
        authority.wasCreated ? "a new local certificate authority, made now" : "the local certificate authority"
      return
        "HTTPS with a certificate from \(made): \(authority.certificateFile.path) (doppel trust says how to trust it)"
    }

    /// Prints the line about `authority` when the server serves HTTPS.
    static func announce(_ authority: Authority?) {
      if let authority { Console.out(authorityLine(authority)) }
    }
  }
#endif
