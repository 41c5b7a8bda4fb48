import Doppel
import Testing

@Suite struct HTTPHeadersTests {
  @Test func caseInsensitiveMultiValue() {
    var headers: HTTPHeaders = ["Content-Type": "text/plain", "Set-Cookie": "a=1", "set-cookie": "b=2"]
    #expect(headers["content-type"] == "text/plain")
    #expect(headers.values(for: "SET-COOKIE") == ["a=1", "b=2"])
    #expect(headers.dictionary["Set-Cookie"] == "a=1, b=2")
    headers["SET-COOKIE"] = "c=3"
    #expect(headers.values(for: "Set-Cookie") == ["c=3"])
    headers.add("Accept", "x")
    headers["accept"] = nil
    #expect(!headers.contains("Accept"))
    #expect(headers.count == 2)
    #expect(HTTPHeaders(["A": "1"]) == HTTPHeaders(["a": "1"]))
  }

  @Test func mergingReplacesNamesPresentInTheOther() {
    let merged = HTTPHeaders(["A": "1", "B": "2"]).merging(["b": "3", "C": "4"])
    #expect(merged.values(for: "B") == ["3"])
    #expect(merged["A"] == "1")
    #expect(merged["c"] == "4")
  }
}
