import Foundation
import Testing

@testable import Doppel

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
