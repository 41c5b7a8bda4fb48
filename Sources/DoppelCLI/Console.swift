#if Server
  import Foundation

  /// Writing to the terminal.
  enum Console {
    /// Prints a line to standard output, unbuffered, so that each log line reaches a pipe (a test,
    /// `| grep`) as soon as it is printed.
    static func out(_ line: String) {
      FileHandle.standardOutput.write(Data((line + "\n").utf8))
    }

    /// Prints a line to standard error.
    static func error(_ line: String) {
      FileHandle.standardError.write(Data((line + "\n").utf8))
    }
  }
#endif
