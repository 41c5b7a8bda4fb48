#if Server && OpenAPI
  import Doppel
  import DoppelOpenAPI
  import Foundation

  // What `doppel lint --openapi` checks, with the OpenAPI trait. Without it,
  // Lint+OpenAPI+WithoutTrait.swift declares the same names and `--openapi` is refused.

  extension Lint {
    /// With the trait, `--openapi` needs nothing more.
    static let openAPINeedsTrait: String? = nil

    /// The OpenAPI document `--openapi` names, read once; none when it is not given or cannot be
    /// used.
    struct OpenAPIReference {
      let document: OpenAPIDocument?

      /// Reads the document at `path`; one that cannot be used is reported (the files are still
      /// checked for everything else) and sets `unusable`.
      init(_ path: String?, unusable: inout Bool) {
        guard let path else {
          document = nil
          return
        }
        do {
          document = try OpenAPIDocument(url: URL(fileURLWithPath: path), name: path)
        } catch {
          Console.out(error.description)
          Console.error("doppel lint: the OpenAPI document \(path) cannot be used; the files are checked without it.")
          unusable = true
          document = nil
        }
      }

      /// What the document contradicts in the input at `path`.
      func problems(in path: String) -> [String] {
        document.map { Lint.check(path, against: $0) } ?? []
      }
    }

    /// What `document` contradicts in the stubs of a manifest or the entries of a cassette, each
    /// line starting with the file (as typed) and the position of the stub's declaration or of
    /// the entry. An input that cannot be read is left to ``check(_:redaction:)``, which reports
    /// why.
    static func check(_ path: String, against document: OpenAPIDocument) -> [String] {
      let url = URL(fileURLWithPath: path)
      if url.pathExtension.lowercased() == "har" {
        return (cassetteExchanges(path) ?? []).flatMap { exchange in
          document.violations(in: exchange.request, response: exchange.response).map { "\(exchange.place): \($0)" }
        }
      }
      guard let manifest = try? Manifest.load(contentsOf: url) else { return [] }
      var problems: [String] = []
      for stub in stubs(of: manifest) {
        let found = document.violations(of: stub)
        guard !found.isEmpty else { continue }
        let place = "\(shown(stub.location, in: manifest, typed: path)):\(stub.location.line):\(stub.location.column)"
        problems += found.map { "\(place): \($0)" }
      }
      return problems
    }
  }
#endif
