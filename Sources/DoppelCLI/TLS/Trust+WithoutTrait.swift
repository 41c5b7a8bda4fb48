#if Server && !TLS
  import ArgumentParser
  import Foundation

  // A doppel built without the TLS trait: the names Trust+TLS.swift declares with it.

  extension Trust {
    /// Refuses the command: this doppel has no certificate authority.
    func checkOptions() throws {
      throw ValidationError("doppel trust: \(TLSOptions.traitMessage).")
    }

    /// Nothing to do: `validate()` refused the command already.
    func trust() throws {}
  }
#endif
