import Doppel
import Foundation
import Testing

@Suite struct QueryMatcherTests {
  @Test func subsetByDefaultInAnyOrder() {
    let matcher = Matcher.query(["page": "2", "size": "10"])
    #expect(matcher.matches(request("https://a.com/x?size=10&page=2")))
    #expect(matcher.matches(request("https://a.com/x?size=10&sort=name&page=2")))
    #expect(!matcher.matches(request("https://a.com/x?page=2")))
    #expect(!matcher.matches(request("https://a.com/x?page=3&size=10")))
  }

  @Test func exactRejectsExtraItems() {
    let matcher = Matcher.query(exactly: ["page": "2"])
    #expect(matcher.matches(request("https://a.com/x?page=2")))
    #expect(!matcher.matches(request("https://a.com/x?page=2&size=10")))
    #expect(!matcher.matches(request("https://a.com/x")))
  }

  @Test func percentDecodingAware() {
    #expect(Matcher.query(["q": "maine coon"]).matches(request("https://a.com/s?q=maine%20coon")))
    #expect(Matcher.query(["q": "a&b"]).matches(request("https://a.com/s?q=a%26b")))
    #expect(Matcher.get("/s?q=maine%20coon").matches(request("https://a.com/s?q=maine%20coon&x=1")))
    // `+` is a plus sign in a query (RFC 3986), not a space.
    #expect(!Matcher.query(["q": "a b"]).matches(request("https://a.com/s?q=a+b")))
  }

  @Test func repeatedNamesCountEachValue() {
    let matcher = Matcher.query(["tag": "a", "tag": "b"])
    #expect(matcher.matches(request("https://a.com/x?tag=b&tag=a")))
    #expect(!matcher.matches(request("https://a.com/x?tag=a")))
    #expect(!Matcher.query(["tag": "a", "tag": "a"]).matches(request("https://a.com/x?tag=a")))
    #expect(Matcher.query(exactly: ["tag": "a", "tag": "b"]).matches(request("https://a.com/x?tag=b&tag=a")))
    #expect(!Matcher.query(exactly: ["tag": "a"]).matches(request("https://a.com/x?tag=a&tag=a")))
  }

  @Test func queryInAStubURLIsASubset() {
    let matcher = Matcher.get("https://a.com/breeds?variant=empty")
    #expect(matcher.matches(request("https://a.com/breeds?variant=empty")))
    #expect(matcher.matches(request("https://a.com/breeds?lang=en&variant=empty")))
    #expect(!matcher.matches(request("https://a.com/breeds")))
  }

  @Test func exactURLIncludesTheQuery() {
    let matcher = Matcher.url(exactly: "https://a.com/breeds?b=2&a=1")
    #expect(matcher.matches(request("https://a.com/breeds?a=1&b=2")))
    #expect(!matcher.matches(request("https://a.com/breeds?a=1&b=2&c=3")))
    #expect(!matcher.matches(request("https://a.com/breeds?a=1")))
  }

  @Test func presenceAndURLQueryItems() {
    #expect(Matcher.query(has: "debug").matches(request("https://a.com/x?debug")))
    #expect(!Matcher.query(has: "debug").matches(request("https://a.com/x?verbose")))
    #expect(Matcher.query([URLQueryItem(name: "flag", value: nil)]).matches(request("https://a.com/x?flag")))
  }
}
