import Foundation

/// Where something was declared in the user's source, for diagnostics.
public struct CodeLocation: Sendable, Hashable, CustomStringConvertible {
  /// `Module/File.swift`.
  public let fileID: String
  /// The full path of the file.
  public let filePath: String
  /// The line, from 1.
  public let line: Int
  /// The column, from 1.
  public let column: Int

  /// Creates a location; the defaults capture the caller's.
  public init(
    fileID: String = #fileID, filePath: String = #filePath, line: Int = #line, column: Int = #column
  ) {
    self.fileID = fileID
    self.filePath = filePath
    self.line = line
    self.column = column
  }

  /// The file name: `BreedTests.swift`.
  public var fileName: String { Self.fileName(of: fileID) }

  /// `BreedTests.swift:14`.
  public var description: String { "\(fileName):\(line)" }
}
