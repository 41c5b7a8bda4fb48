#if OpenAPI
  import Doppel
  import Foundation

  /// Where in an OpenAPI document something is written: the file, the line, and the key path,
  /// as in `api.yaml:142 components.schemas.Breed.required`.
  public struct DocumentLocation: Sendable, Hashable, CustomStringConvertible {
    /// The document's file name.
    public let file: String
    /// The line (from 1).
    public let line: Int
    /// The keys from the document's root, joined with dots: `components.schemas.Breed.required`.
    public let path: String

    /// Creates a location.
    public init(file: String, line: Int, path: String) {
      self.file = file
      self.line = line
      self.path = path
    }

    /// `api.yaml:142 components.schemas.Breed.required`
    public var description: String { "\(file):\(line) \(path)" }

    /// The location of `key` under this one, on `line`.
    func appending(_ key: String, line: Int? = nil) -> DocumentLocation {
      DocumentLocation(file: file, line: line ?? self.line, path: path.isEmpty ? key : path + "." + key)
    }
  }

  /// An OpenAPI document that cannot be used: malformed YAML or JSON, an unsupported version, a
  /// `$ref` that leads nowhere. Its description names the file, the line and the fix.
  public struct OpenAPIError: LocalizedError, Sendable, CustomStringConvertible, Equatable {
    /// The file, as given.
    public let file: String
    /// The line (from 1).
    public let line: Int
    /// The column (from 1), when known.
    public let column: Int?
    /// What is wrong and how to fix it.
    public let message: String

    init(file: String, line: Int, column: Int? = nil, _ message: String) {
      self.file = file
      self.line = line
      self.column = column
      self.message = message
    }

    /// `api.yaml:12:5: the YAML is malformed: … Fix the indentation or quoting there.`
    public var description: String { "\(file):\(line)\(column.map { ":\($0)" } ?? ""): \(message)" }

    /// The ``description``, so that `localizedDescription` names the file, the line and the fix too.
    public var errorDescription: String? { description }

    /// The file, line and column as a `CodeLocation`, the shape `DoppelError.location` and
    /// `GraphQLSchemaError.location` have too (the column is 1 when unknown).
    public var location: CodeLocation { CodeLocation(fileID: file, filePath: file, line: line, column: column ?? 1) }
  }

  extension DoppelError.Kind {
    /// An OpenAPI document, or a request or answer checked against one.
    public static let openAPI = DoppelError.Kind("openAPI")
  }

  extension DoppelError {
    /// An OpenAPI document problem, or a violation of one.
    package static func openAPI(_ message: String) -> DoppelError { DoppelError(message, kind: .openAPI) }
  }

  extension OpenAPIError: DoppelErrorConvertible {
    /// The error as a `DoppelError` of kind `openAPI`: its description as the message, and its
    /// file, line and column as the location.
    package var doppelError: DoppelError {
      DoppelError(description, kind: .openAPI, location: location)
    }
  }
#endif
