#if Server
  import ArgumentParser
  import Doppel
  import DoppelServer
  import Foundation

  /// `doppel trust`: where the local certificate authority is, and how to trust it (or, with
  /// `--remove`, how to stop).
  struct Trust: ParsableCommand {
    static let configuration = CommandConfiguration(
      abstract: "Print the local certificate authority's file and how to trust it, or remove it.",
      discussion: """
        doppel serve --tls uses a certificate signed by a certificate authority of
        your own, made once (by this command or the first doppel serve --tls) and
        kept in $DOPPEL_HOME, or else ~/Library/Application Support/Doppel on macOS
        and $XDG_DATA_HOME/doppel or ~/.local/share/doppel elsewhere. Its key file
        is readable by you only (a key or folder others can read is refused). Its
        certificate, valid for 825 days, permits only DNS names under localhost and
        the addresses 127.0.0.0/8, ::1, 10.0.2.2 and those given with --allow-ip
        when it is made, for server authentication only, so that its key cannot
        impersonate a real site, sign e-mail or sign code.

        Prints the commands that trust it for TLS only on macOS, Debian and Ubuntu,
        Fedora, in the booted iOS Simulator and on Android. --remove deletes its key
        and certificate and prints the commands that remove the trust; it never runs
        sudo.
        """
    )

    @Option(
      name: .customLong("allow-ip"),
      help: ArgumentHelp(
        "Let a new authority also sign for this IP address, such as this computer's LAN address for a device (repeatable).",
        valueName: "address"))
    var allowedAddresses: [String] = []

    @Flag(help: "Delete the authority's key and certificate, and print how to remove the trust given to it.")
    var remove = false

    func validate() throws { try checkOptions() }

    func run() throws { try trust() }
  }
#endif
