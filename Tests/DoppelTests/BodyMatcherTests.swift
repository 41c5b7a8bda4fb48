import Doppel
import Foundation
import Testing

@Suite struct BodyMatcherTests {
  @Test func bytesAndText() {
    #expect(
      Matcher.body(Data([1, 2, 3])).matches(
        Request(method: .post, url: URL(string: "https://a.com")!, body: Data([1, 2, 3]))))
    #expect(Matcher.body("hello").matches(request(.post, "https://a.com", body: "hello")))
    #expect(!Matcher.body("hello").matches(request(.post, "https://a.com", body: "hello!")))
    #expect(!Matcher.body("hello").matches(request(.post, "https://a.com")))
  }

  @Test func jsonEqualityIgnoresKeyOrderAndNumberSpelling() {
    let matcher = Matcher.jsonBody(["sku": "A1", "quantity": 2, "gift": false])
    #expect(matcher.matches(request(.post, "https://a.com", body: #"{"quantity": 2.0, "gift": false, "sku": "A1"}"#)))
    #expect(
      !matcher.matches(request(.post, "https://a.com", body: #"{"quantity": 2, "gift": false, "sku": "A1", "x": 1}"#)))
    #expect(!matcher.matches(request(.post, "https://a.com", body: #"{"quantity": 2, "gift": 0, "sku": "A1"}"#)))
    #expect(!matcher.matches(request(.post, "https://a.com", body: "not json")))
  }

  @Test func jsonFromEncodable() {
    struct Order: Encodable {
      let sku: String
      let quantity: Int
    }
    let matcher = Matcher.jsonBody(Order(sku: "A1", quantity: 2))
    #expect(matcher.matches(request(.post, "https://a.com", body: #"{"quantity":2,"sku":"A1"}"#)))
  }

  @Test func jsonSubsetAllowsExtraKeysAtAnyDepth() {
    let matcher = Matcher.jsonBody(containing: ["order": ["sku": "A1"], "items": [["id": 1]]])
    #expect(
      matcher.matches(
        request(.post, "https://a.com", body: #"{"order":{"sku":"A1","n":3},"items":[{"id":1,"x":true}],"extra":null}"#)
      ))
    #expect(!matcher.matches(request(.post, "https://a.com", body: #"{"order":{"sku":"B2"},"items":[{"id":1}]}"#)))
    #expect(
      !matcher.matches(request(.post, "https://a.com", body: #"{"order":{"sku":"A1"},"items":[{"id":1},{"id":2}]}"#)))
  }

  @Test func formFieldsAreASubsetWithPlusAsSpace() {
    let matcher = Matcher.formBody(["name": "Tom Cat", "age": "3"])
    #expect(matcher.matches(request(.post, "https://a.com", body: "age=3&name=Tom+Cat&color=grey")))
    #expect(matcher.matches(request(.post, "https://a.com", body: "name=Tom%20Cat&age=3")))
    #expect(!matcher.matches(request(.post, "https://a.com", body: "name=Tom")))
  }

  @Test func customBodyPredicate() {
    let matcher = Matcher.body("over 3 bytes") { $0.count > 3 }
    #expect(matcher.matches(request(.post, "https://a.com", body: "abcd")))
    #expect(!matcher.matches(request(.post, "https://a.com", body: "abc")))
  }
}
