#if Server
  import ArgumentParser

  /// `--port`, `--host` and `--allow-remote`: where `doppel serve` and `doppel record` listen.
  struct ListenOptions: ParsableArguments {
    @Option(name: .shortAndLong, help: "The port to listen on; 0 lets the system choose.")
    var port = 8080

    @Option(help: "The address to listen on.")
    var host = "127.0.0.1"

    @Flag(help: "Allow --host to be an address that is not loopback (anyone who can reach it can use the server).")
    var allowRemote = false

    func validate() throws {
      guard (0...65_535).contains(port) else {
        throw ValidationError("--port \(port) is not a TCP port; use 0 to 65535.")
      }
    }
  }
#endif
