#if Server
  import ArgumentParser
  import Doppel
  import DoppelServer
  import Foundation

  /// `doppel trust`: where the local certificate authority is, and how to trust it.
  struct Trust: ParsableCommand {
    static let configuration = CommandConfiguration(
      abstract: "Print the local certificate authority's file and how to trust it.",
      discussion: """
        doppel serve --tls uses a certificate signed by a certificate authority of
        your own, made once (by this command or the first doppel serve --tls) and
        kept in $DOPPEL_HOME, or else ~/Library/Application Support/Doppel on macOS
        and $XDG_DATA_HOME/doppel or ~/.local/share/doppel elsewhere. Its key file
        is readable by you only. It signs only for localhost, 127.0.0.0/8, ::1
        and 10.0.2.2, and its certificate permits no name outside localhost, so
        that its key cannot impersonate a real site's name.

        Prints the commands that trust it on macOS, in the booted iOS Simulator
        and in an Android emulator. To start over, delete doppel-ca.pem and
        doppel-ca-key.pem in that folder, then trust the new authority.
        """
    )

    func validate() throws {
      #if !TLS
        throw ValidationError("doppel trust: \(TLSOptions.traitMessage).")
      #endif
    }

    func run() throws {
      #if TLS
        let authority = try LocalCertificateAuthority(folder: LocalCertificateAuthority.defaultFolder())
        for line in Self.instructions(for: authority) { Console.out(line) }
      #endif
    }

    #if TLS
      /// What `doppel trust` prints.
      static func instructions(for authority: LocalCertificateAuthority) -> [String] {
        let certificate = quoted(authority.certificateFile.path)
        let made = authority.wasCreated ? " (made now)" : ""
        return [
          "The local certificate authority\(made): \(authority.certificateFile.path)",
          "Its key, readable by you only: \(authority.privateKeyFile.path)",
          "It signs only for localhost and names under .localhost, 127.0.0.0/8, ::1",
          "and 10.0.2.2; its certificate permits no name outside localhost, so its key",
          "cannot impersonate a real site's name.",
          "",
          "macOS (Safari, Chrome, URLSession; asks for an administrator's password):",
          "  sudo security add-trusted-cert -d -r trustRoot -k /Library/Keychains/System.keychain \(certificate)",
          "or for your user only:",
          "  security add-trusted-cert -r trustRoot -k ~/Library/Keychains/login.keychain-db \(certificate)",
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
          "",
          "To stop trusting it on macOS: sudo security remove-trusted-cert -d \(certificate)",
        ]
      }

      /// `text` quoted for a POSIX shell.
      static func quoted(_ text: String) -> String {
        "'" + text.replacingOccurrences(of: "'", with: #"'\''"#) + "'"
      }
    #endif
  }
#endif
