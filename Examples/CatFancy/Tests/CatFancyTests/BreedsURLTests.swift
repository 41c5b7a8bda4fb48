import CatFancyKit
import Foundation
import Testing

/// The endpoint's URLs.
@Suite("URLs")
struct BreedsURLTests {
  @Test(
    "each variant has the article's URL",
    arguments: zip(
      BreedsURL.allCases, ["breeds.json", "breeds_empty.json", "breeds_malformed.json", "breeds_with_more.json"]))
  func url(variant: BreedsURL, file: String) {
    #expect(variant.url.absoluteString == "https://raceconditionsoftware.s3.us-west-1.amazonaws.com/CatFancy/\(file)")
  }

  @Test func scenarioNames() {
    #expect(BreedsURL.allCases.map(\.rawValue) == ["standard", "empty", "malformed", "withMore"])
  }
}
