import Foundation

package enum FileHandleOutput {
  package static func standardError(_ text: String) {
    FileHandle.standardError.write(Data(text.utf8))
  }
}
