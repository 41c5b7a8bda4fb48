#if Server && TLS
  import ArgumentParser
  import Doppel
  import DoppelServer
  import Foundation

  // `doppel trust` with the TLS trait. Without it, Trust+WithoutTrait.swift declares the same
  // names and the command is refused.

  extension Trust {
    /// Checks that the options go together.
    func checkOptions() throws {
      if remove && !allowedAddresses.isEmpty {
        throw ValidationError(
          "--allow-ip makes an authority and --remove deletes it; run doppel trust --remove, then doppel trust --allow-ip \(allowedAddresses[0])."
        )
      }
    }

    /// Prints where the authority is and how to trust it, or removes it.
    func trust() throws {
      let folder = LocalCertificateAuthority.defaultFolder()
      if remove {
        for line in try Self.remove(folder: folder) { Console.out(line) }
        return
      }
      let authority = try LocalCertificateAuthority(folder: folder, allowedAddresses: allowedAddresses)
      for line in Self.instructions(for: authority) { Console.out(line) }
      if let outdated = authority.outdatedReason { Console.error(outdated) }
    }

    /// The name of the certificate's file where Linux distributions keep added authorities.
    static let linuxFileName = "doppel-ca.crt"

    /// What `doppel trust` prints.
    static func instructions(for authority: LocalCertificateAuthority) -> [String] {
      let certificate = quoted(authority.certificateFile.path)
      let made = authority.wasCreated ? " (made now)" : ""
      return [
        "The local certificate authority\(made): \(authority.certificateFile.path)",
        "Its key, readable by you only: \(authority.privateKeyFile.path)",
        "It signs only for localhost and names under .localhost, and the addresses",
        "\(authority.permittedAddressRanges.joined(separator: ", ")); for servers only",
        "(no e-mail, no code), so its key cannot impersonate a real site.",
        "",
        "macOS (Safari, Chrome, URLSession; for TLS only; asks for an administrator's password):",
        "  sudo security add-trusted-cert -d -r trustRoot -p ssl -k /Library/Keychains/System.keychain \(certificate)",
        "or for your user only:",
        "  security add-trusted-cert -r trustRoot -p ssl -k ~/Library/Keychains/login.keychain-db \(certificate)",
        "",
        "Debian, Ubuntu (OpenSSL, curl; the certificate's own usage limits it to TLS servers):",
        "  sudo cp \(certificate) /usr/local/share/ca-certificates/\(linuxFileName) && sudo update-ca-certificates",
        "Fedora, RHEL (trusted for TLS servers only):",
        "  openssl x509 -in \(certificate) -addtrust serverAuth -out /tmp/\(linuxFileName)",
        "  sudo cp /tmp/\(linuxFileName) /etc/pki/ca-trust/source/\(linuxFileName) && sudo update-ca-trust",
        "",
        "iOS Simulator (the booted one; again for each simulator you use or erase):",
        "  xcrun simctl keychain booted add-root-cert \(certificate)",
        "",
        "Android emulator (serve with --tls --tls-name 10.0.2.2, use https://10.0.2.2:<port>):",
        "  adb push \(certificate) /sdcard/Download/doppel-ca.crt",
        "  adb shell am start -a android.settings.SECURITY_SETTINGS",
        "then Encryption & credentials > Install a certificate > CA certificate > doppel-ca.crt.",
        "Apps trust a user's CA only when their network security config says so:",
        #"  <debug-overrides><trust-anchors><certificates src="user"/></trust-anchors></debug-overrides>"#,
        "A device on your network: make the authority with doppel trust --allow-ip <this computer's address>,",
        "and serve with --tls --tls-name <that address>.",
        "",
        "To stop trusting it and delete its key: doppel trust --remove",
      ]
    }

    /// Deletes the authority in `folder` and returns what `doppel trust --remove` prints: the
    /// files deleted, then the commands that remove the trust on each platform.
    static func remove(folder: URL) throws -> [String] {
      let certificateFile = folder.appendingPathComponent(LocalCertificateAuthority.certificateFileName)
      // Read before the files go: macOS names the certificate by its SHA-1 digest.
      let digest = (try? LocalCertificateAuthority.certificateSHA1(ofPEMFile: certificateFile)) ?? "<SHA-1>"
      let removed = try LocalCertificateAuthority.remove(folder: folder)
      guard !removed.isEmpty else {
        return [
          "There is no local certificate authority in \(folder.path): nothing to delete.",
          "If you trusted one before, remove that trust as below.",
        ] + removalSteps(digest: digest)
      }
      return removed.map { "Deleted \($0.path)" } + [
        "Its key is gone, so nothing new can be signed with it. Remove the trust you gave it",
        "(doppel never runs these for you):",
      ] + removalSteps(digest: digest)
    }

    /// The commands that remove the trust given to the authority whose SHA-1 digest is `digest`.
    static func removalSteps(digest: String) -> [String] {
      [
        "",
        "macOS, the System keychain (and its trust settings):",
        "  sudo security delete-certificate -Z \(digest) -t /Library/Keychains/System.keychain",
        "macOS, your login keychain:",
        "  security delete-certificate -Z \(digest) -t ~/Library/Keychains/login.keychain-db",
        "Debian, Ubuntu:",
        "  sudo rm /usr/local/share/ca-certificates/\(linuxFileName) && sudo update-ca-certificates --fresh",
        "Fedora, RHEL:",
        "  sudo rm /etc/pki/ca-trust/source/\(linuxFileName) && sudo update-ca-trust",
        "iOS Simulator (removes every certificate added to the booted one):",
        "  xcrun simctl keychain booted reset",
        "Android: Settings > Security > Encryption & credentials > Trusted credentials > User,",
        "then Doppel local development CA > Remove (and delete Download/doppel-ca.crt).",
      ]
    }

    /// `text` quoted for a POSIX shell.
    static func quoted(_ text: String) -> String {
      "'" + text.replacingOccurrences(of: "'", with: #"'\''"#) + "'"
    }
  }
#endif
