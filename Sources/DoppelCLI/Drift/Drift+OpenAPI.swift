#if Server && OpenAPI
  import ArgumentParser
  import Doppel
  import DoppelOpenAPI
  import Foundation

  // What `doppel drift --openapi` checks, with the OpenAPI trait. Without it,
  // Drift+OpenAPI+WithoutTrait.swift declares the same names and `--openapi` is refused.

  extension Drift {
    /// The document live answers are also checked against.
    typealias Document = OpenAPIDocument

    /// With the trait, `--openapi` needs nothing more.
    static let openAPINeedsTrait: String? = nil

    /// The `--openapi` document, if one was named.
    ///
    /// - Throws: `ExitCode(2)` when it cannot be used, after printing why.
    func document() throws -> Document? {
      guard let openAPI else { return nil }
      do {
        return try OpenAPIDocument(url: URL(fileURLWithPath: openAPI), name: openAPI)
      } catch {
        Console.error(error.description)
        Console.error("doppel drift: the OpenAPI document \(openAPI) cannot be used.")
        throw ExitCode(2)
      }
    }

    /// What the `--openapi` document says of `target`, sent to `url`, and the live answer to it;
    /// none without a document.
    static func documentDifferences(_ target: Target, sentTo url: URL, live: Answer, settings: Settings)
      -> [DriftDifference]
    {
      guard let document = settings.document else { return [] }
      let sent = Request(method: HTTPMethod(target.method), url: url, headers: HTTPHeaders(), body: target.body)
      return document.violations(in: sent, status: live.status, headers: live.headers, body: live.body)
        .map { DriftDifference(.openAPI, recorded: nil, live: "\($0)") }
    }
  }
#endif
