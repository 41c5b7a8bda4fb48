#if OpenAPI
  import Doppel
  import Foundation
  import Testing

  @testable import DoppelOpenAPI

  /// The checker's shortcuts give exactly what the slow ways give: simple patterns matched by hand
  /// as `NSRegularExpression` matches them, bodies read from the tape as from a ``JSONValue``.
  @Suite struct CheckerTests {
    static let simplePatterns = [
      "^[A-Z]{3}$", "^[a-z0-9_-]+$", #"^\d{4}-\d{2}$"#, "^[A-Z]", "[0-9]$", "ab?c*d+", #"^\w+@\w+\.com$"#,
      "^[^a-z]*$", "^a{2,}$", "^a{1,3}b{0,2}$", "^.+$", "^[a-z]*[a-z]{2}$", "^$", "^-?[0-9]+$",
      #"^[\w.-]+$"#, "^[-a]+$", "^[a-]+$", "x", #"^\.\*\+$"#,
    ]

    static let otherPatterns = [
      "^(a|b)$", "a+?", "a*+", "^a|b$", #"\bword\b"#, "[[a-z]&&[^c]]", "[a{bc}]", "a{,2}", #"^\s+$"#, "[:alpha:]",
      "# comment", "^[a-z ]+$",
    ]

    static let texts = [
      "", "ABY", "AB", "ABCD", "aby", "abc-12_x", "2024-02", "2024-2", "abc9", "abd", "abccd", "acd", "ad",
      "me@site.com", "me@site.org", "ABC123", "aa", "a", "aaa", "aaabb", "aaabbb", "x", "xx", "-12", "12-",
      "a.b-c", ".*+", "a-a", " ", "Abc", "zz",
    ]

    @Test(arguments: simplePatterns)
    func simplePatternsMatchAsTheRegularExpressionDoes(_ source: String) throws {
      let simple = try #require(SimplePattern(source), "\(source) should be simple")
      let expression = try NSRegularExpression(pattern: source)
      for text in Self.texts {
        let expected = expression.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)) != nil
        let found = Array(text.utf8).withUnsafeBufferPointer { simple.matches($0) }
        #expect(found == expected, "\(source) on \(text)")
      }
    }

    /// Many short texts of the characters the patterns above mention, the same ones each run.
    @Test(arguments: simplePatterns)
    func simplePatternsAgreeOnGeneratedText(_ source: String) throws {
      let simple = try #require(SimplePattern(source))
      let expression = try NSRegularExpression(pattern: source)
      let alphabet = Array("aAbcdz09-_.@*+ Z".utf8)
      var random = SeededRandom(seed: UInt64(source.utf8.count))
      for _ in 0..<300 {
        let length = Int(random.next() % 7)
        let bytes = (0..<length).map { _ in alphabet[Int(random.next() % UInt64(alphabet.count))] }
        let text = String(decoding: bytes, as: UTF8.self)
        let expected = expression.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)) != nil
        #expect(bytes.withUnsafeBufferPointer { simple.matches($0) } == expected, "\(source) on \(text)")
      }
    }

    @Test(arguments: otherPatterns)
    func otherPatternsAreLeftToTheRegularExpression(_ source: String) {
      #expect(SimplePattern(source) == nil, "\(source)")
    }

    /// A line break or text outside ASCII, where ICU's `$` and `.` have rules of their own.
    @Test func textTheRegularExpressionMustJudge() throws {
      let simple = try #require(SimplePattern("^[A-Z]{3}$"))
      for text in ["ABC\n", "ABÇ", "AB\r"] {
        #expect(Array(text.utf8).withUnsafeBufferPointer { simple.matches($0) } == nil)
      }
      let pattern = Pattern(source: "^[A-Z]{3}$", expression: try NSRegularExpression(pattern: "^[A-Z]{3}$"))
      #expect(Array("ABC\n".utf8).withUnsafeBufferPointer { pattern.search(ascii: $0) } == .found)
    }

    /// A pattern that backtracks exponentially, and a body crafted against it: the check gives up
    /// and says so, instead of holding the thread for hours.
    @Test func aPatternThatBacktracksTooMuchIsReportedNotRun() throws {
      let url = try Documents.temporary("nested.yaml", Documents.answering("{type: string, pattern: '^(a+)+$'}"))
      let document = try OpenAPIDocument(contentsOf: url)
      let request = Request(URLRequest(url: URL(string: "https://api.test/a")!))
      let crafted = String(repeating: "a", count: 40) + "!"
      #expect(
        document.violations(
          in: request, status: 200, headers: ["Content-Type": "application/json"], body: Data("\"\(crafted)\"".utf8)
        )
        .map { $0.rule + " at " + ($0.jsonPath ?? "-") } == [
          "the string \"\(String(repeating: "a", count: 37))…\" could not be checked against the pattern ^(a+)+$: the pattern gave up after about 2.5 million steps on this text; it backtracks too much (nested quantifiers such as (a+)+ do): simplify it at $"
        ])
      #expect(
        document.violations(
          in: request, status: 200, headers: ["Content-Type": "application/json"], body: Data(#""aaaa""#.utf8)
        )
        .isEmpty)
    }

    static let document = """
      openapi: 3.1.0
      info: {title: Checker, version: 1.0.0}
      paths:
        /things:
          post:
            requestBody:
              content:
                application/json:
                  schema: {$ref: '#/components/schemas/Thing'}
            responses:
              '204': {description: Done.}
      components:
        schemas:
          Thing:
            type: object
            required: [id, K, Größe]
            additionalProperties: false
            properties:
              id: {type: integer}
              K: {type: string, pattern: '^[a-z]+$'}
              Größe: {type: number, maximum: 10}
              list: {type: array, items: {type: integer, minimum: 0}}
      """

    func messages(_ body: String) throws -> [String] {
      let document = try OpenAPIDocument(contentsOf: try Documents.temporary("checker.yaml", Self.document))
      var request = URLRequest(url: URL(string: "https://api.test/things")!)
      request.httpMethod = "POST"
      request.setValue("application/json", forHTTPHeaderField: "Content-Type")
      request.httpBody = Data(body.utf8)
      return document.violations(in: Request(request)).map { $0.rule + " at " + ($0.jsonPath ?? "-") }
    }

    /// Members in any order, keys outside ASCII (and one Swift calls equal to an ASCII name),
    /// unknown members in name order, items by their index.
    @Test func bodiesAreReadAsValues() throws {
      #expect(try messages(#"{"Größe": 3, "K": "ab", "id": 1}"#) == [])
      // KELVIN SIGN, which Swift compares equal to "K".
      #expect(try messages(#"{"id": 1, "\#u{212A}": "ab", "Größe": 3}"#) == [])
      #expect(
        try messages(#"{"zeta": 1, "id": 1.5, "K": "AB", "alpha": 2, "Größe": 11, "list": [1, -1]}"#) == [
          "expected an integer, found the number 1.5 at $.id",
          #"the string "AB" does not match the pattern ^[a-z]+$ at $.K"#,
          "11 is greater than the maximum 10 at $.Größe",
          "-1 is less than the minimum 0 at $.list[1]",
          #"the property "alpha" is not allowed (additionalProperties is false) at $.alpha"#,
          #"the property "zeta" is not allowed (additionalProperties is false) at $.zeta"#,
        ])
      #expect(
        try messages(#"{"id": 1}"#) == [
          #"the required property "K" is missing at $"#, #"the required property "Größe" is missing at $"#,
        ])
    }

    /// The query items the checker reads, split as bytes, are the ones `URLComponents` reads:
    /// escapes decoded, `+` kept, empty items and items without `=` kept, `=` in a value kept.
    @Test(arguments: [
      "https://api.example.com/pets?limit=10&tag=a%20b&tag=c+d",
      "https://api.example.com/pets?a=&=b&c&&d=e=f",
      "https://api.example.com/pets?name=%C3%A9l%C3%A8ve&x=%E2%9C%93",
      "https://api.example.com/pets?bad=%zz&ok=1",
      "https://api.example.com/pets?",
      "https://api.example.com/pets",
    ])
    func queryItemsAreTheOnesURLComponentsReads(url: String) {
      let request = Request(method: .get, url: URL(string: url)!)
      let expected = URLComponents(string: url)?.queryItems ?? []
      #expect(OpenAPIDocument.queryItems(of: request) == expected)
    }
  }
#endif
