import DoppelCore
import DoppelRecording
@_spi(DoppelInternals) import DoppelToolkit
import Foundation

/// A part of a manifest that another Doppel module serves, given to
/// ``Backend/init(manifest:scenario:unmatched:issueReporter:clock:extensions:)`` or
/// ``Backend/addStubs(from:scenario:extensions:)``.
///
/// `"graphql"` (a GraphQL schema served with made-up data) is served by `DoppelGraphQL`, so that
/// a consumer who does not serve GraphQL never builds a GraphQL parser:
///
/// ```swift
/// import DoppelGraphQL
///
/// let backend = try Backend(manifest: manifest, extensions: [.graphQL])
/// ```
///
/// A manifest with `"graphql"` loaded without the extension is an error that says so.
public struct ManifestExtension: Sendable {
  /// The manifest key the extension serves, such as `graphql`.
  public let key: String
  package let serveGraphQL: @Sendable (Backend, ManifestGraphQL) throws(DoppelError) -> StubHandle

  /// An extension serving the manifest key `key` with `serveGraphQL`.
  package init(
    key: String, serveGraphQL: @escaping @Sendable (Backend, ManifestGraphQL) throws(DoppelError) -> StubHandle
  ) {
    self.key = key
    self.serveGraphQL = serveGraphQL
  }
}

extension ManifestGraphQL {
  /// Serves this schema on `backend` with the `graphql` extension among `extensions`.
  ///
  /// - Throws: ``DoppelError`` when none of `extensions` serves `graphql`, or the schema cannot
  ///   be served.
  func serve(on backend: Backend, extensions: [ManifestExtension]) throws(DoppelError) -> StubHandle {
    guard let serving = extensions.first(where: { $0.key == "graphql" }) else {
      throw DoppelError.manifest(
        "\(place): serving a GraphQL schema needs DoppelGraphQL. Add the DoppelGraphQL product (with the package's GraphQL trait), import DoppelGraphQL and pass extensions: [.graphQL] where the manifest is loaded, or remove \"graphql\"."
      )
    }
    return try serving.serveGraphQL(backend, self)
  }
}
