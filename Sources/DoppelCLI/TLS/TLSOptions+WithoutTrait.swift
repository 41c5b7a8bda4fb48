#if Server && !TLS
  import ArgumentParser
  import Doppel
  import DoppelServer
  import Foundation

  // A doppel built without the TLS trait: the names TLSOptions+TLS.swift declares with it.

  extension TLSOptions {
    /// No authority without the trait.
    typealias Authority = Never

    /// Refuses `--tls`: this doppel has no HTTPS.
    func checkNames() throws {
      if tls { throw ValidationError("--tls: \(Self.traitMessage).") }
    }

    /// Nothing to set up: `validate()` refused `--tls` already.
    func apply(to configuration: inout StubServer.Configuration) throws -> Authority? { nil }

    /// Nothing to print.
    static func announce(_ authority: Authority?) {}
  }
#endif
