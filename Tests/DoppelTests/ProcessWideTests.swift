import Foundation
import Testing

@testable import Doppel

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

@Suite struct ProcessWideTests {
  #if canImport(FoundationNetworking)
    /// In a test process sessions exist already, so on Linux process-wide interception must refuse
    /// clearly rather than let URLSession.shared reach the network. (The working path is exercised
    /// by `swift run catfancy --shared`, which starts it before any session exists; CI runs it.)
    @Test func refusesClearlyWhenASessionExistedFirst() throws {
      let backend = quietBackend()
      _ = backend.session
      #expect(throws: DoppelError(ProcessWide.lateMessage)) { try backend.interceptProcessWide() }
      #expect(!backend.isInterceptingProcessWide)
    }
  #endif

  @Test func theLateMessageSaysWhatToDo() {
    #expect(
      ProcessWide.lateMessage.hasPrefix(
        "Doppel cannot intercept URLSession.shared in this process: a URLSession was created before Doppel registered its URLProtocol"
      ))
    #expect(ProcessWide.lateMessage.hasSuffix("or better, inject backend.session into the code under test."))
  }
}
