import Foundation
import Testing

@testable import Doppel

/// Which requests a kept answer serves (`Delivery.Answer.serves`, `Request.answerKey`): the key the
/// answer cache is read by, whose mistakes would hand one URL's answer to another.
@Suite struct AnswerKeyTests {
  @Test func anAnswerServesOnlyRequestsForAnEqualURL() {
    let relative = URL(string: "items", relativeTo: URL(string: "https://a.com/v1/")!)!
    let absolute = URL(string: "https://a.com/v1/items")!
    func answer(for request: Request) -> Delivery.Answer {
      Delivery.Answer(url: request.url, key: request.answerKey, status: 200, headers: [:], body: Data())
    }
    let absoluteRequest = Request(url: absolute)
    let relativeRequest = Request(url: relative)
    #expect(absoluteRequest.answerKey == "https://a.com/v1/items")
    #expect(relativeRequest.answerKey == nil)
    #expect(answer(for: absoluteRequest).serves(Request(url: URL(string: "https://a.com/v1/items")!)))
    #expect(!answer(for: absoluteRequest).serves(Request(method: .head, url: absolute)))
    #expect(!answer(for: absoluteRequest).serves(Request(url: URL(string: "https://a.com/v1/item")!)))
    #expect(!answer(for: absoluteRequest).serves(relativeRequest))
    #expect(!answer(for: relativeRequest).serves(absoluteRequest))
    #expect(answer(for: relativeRequest).serves(Request(url: relative)))
  }
}
