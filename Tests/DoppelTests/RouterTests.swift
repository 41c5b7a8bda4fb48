import Doppel
import Foundation
import TestSupport
import Testing

@Suite struct RouterTests {
  @Test func precedenceHoldsAcrossIndexedAndScannedStubs() async {
    let backend = quietBackend()
    for i in 0..<10_000 { backend.stub(.get("https://api.example.com/items/\(i)"), .text("item \(i)")) }
    #expect(await backend.outcome(.get, "https://api.example.com/items/9999") == "200 item 9999")
    backend.stub(.get("/items/{id}"), .text("template"))  // scanned, newer than all indexed
    #expect(await backend.outcome(.get, "https://api.example.com/items/5") == "200 template")
    backend.stub(.get("https://api.example.com/items/5"), .text("newest literal"))  // indexed, newest
    #expect(await backend.outcome(.get, "https://api.example.com/items/5") == "200 newest literal")
    #expect(await backend.outcome(.get, "https://api.example.com/items/6") == "200 template")
    backend.stub(.host("api.example.com"), .text("host"))  // host-indexed, newest
    #expect(await backend.outcome(.get, "https://api.example.com/items/5") == "200 host")
  }

  @Test("many stubs on one path keep their precedence, fallbacks losing to every ordinary stub")
  func manyStubsOnOnePath() async {
    let backend = quietBackend()
    let url = "https://api.example.com/same"
    backend.fallbackStub(.get(url), name: "first fallback", location: CodeLocation()) { _ in .text("fallback 1") }
    for i in 0..<1_000 { backend.stub(.get(url), .text("stub \(i)"), times: 1) }
    backend.fallbackStub(.get(url), name: "second fallback", location: CodeLocation()) { _ in .text("fallback 2") }
    let stubs = backend.stubs
    #expect(stubs.count == 1_002)
    // The newest ordinary stub answers first; each answers once, then the next older one.
    #expect(await backend.outcome(.get, url) == "200 stub 999")
    #expect(await backend.outcome(.get, url) == "200 stub 998")
    for stub in stubs where stub.name == nil { stub.remove() }
    #expect(await backend.outcome(.get, url) == "200 fallback 2")
    backend.stub(.get(url), .text("ordinary again"))
    #expect(await backend.outcome(.get, url) == "200 ordinary again")
  }

  @Test func stubsAreListedInRegistrationOrder() {
    let backend = quietBackend()
    let a = backend.stub(.get("/a"), .ok, name: "a")
    let b = backend.stub(.host("x.com"), .ok, name: "b")
    let c = backend.stub(.method(.get), .ok, name: "c")
    #expect(backend.stubs.map(\.name) == ["a", "b", "c"])
    b.remove()
    #expect(backend.stubs.map(\.name) == ["a", "c"])
    #expect(a.description == "RouterTests.swift:\(#line - 6)  \"a\" GET /a")
    _ = c
  }
}
