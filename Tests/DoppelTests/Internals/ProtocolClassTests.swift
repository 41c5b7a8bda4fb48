import Foundation
import TestSupport
import Testing

@testable import Doppel

/// The route each backend's protocol class carries (`ScopedProtocolClass`,
/// `ProcessWideURLProtocol`): what keeps backends apart on Linux, where a request finds its backend
/// only through its protocol class (see LINUX-URLSESSION.md).
@Suite struct ProtocolClassTests {
  @Test func eachBackendHasItsOwnProtocolClass() {
    let a = quietBackend()
    let b = quietBackend()
    let classA = ScopedProtocolClass.make(for: a.id)
    let classB = ScopedProtocolClass.make(for: b.id)
    #expect(classA != classB)
    #expect(classA.routeID == a.id)
    #expect(classB.routeID == b.id)
    #expect(ScopedProtocolClass.make(for: 0xDEAD_BEEF).routeID == 0xDEAD_BEEF)
    // The class that serves `URLSession.shared` for a number is another class, with the same number.
    let intercepting = ProcessWideURLProtocol.make(for: 0xDEAD_BEEF)
    #expect(intercepting != ScopedProtocolClass.make(for: 0xDEAD_BEEF))
    #expect(intercepting.routeID == 0xDEAD_BEEF)
    #expect(ScopedProtocolClass.number(of: intercepting) == 0xDEAD_BEEF)
  }
}
