#if OpenAPI
  import Doppel
  import DoppelOpenAPI
  import Foundation
  import Testing

  /// The string formats, scanned by hand: what each accepts and refuses.
  @Suite struct FormatTests {
    static let formats = ["date-time", "date", "time", "uuid", "email", "uri", "ipv4"]

    /// Whether `value` passes `format`, checked as a query parameter of a one-operation document.
    static func passes(_ value: String, _ format: String) throws -> Bool {
      let url = try Documents.temporary(
        "formats.yaml",
        """
        openapi: 3.1.0
        info: {title: Formats, version: 1.0.0}
        paths:
          /check:
            get:
              parameters:
                - {name: value, in: query, schema: {type: string, format: \(format)}}
              responses:
                '204': {description: Checked.}
        """)
      let document = try OpenAPIDocument(contentsOf: url)
      var components = URLComponents(string: "https://api.test/check")!
      components.queryItems = [URLQueryItem(name: "value", value: value)]
      return document.violations(in: Request(url: components.url!)).isEmpty
    }

    @Test(arguments: [
      ("date-time", "2020-01-01T10:00:00Z", true), ("date-time", "2020-01-01t10:00:00.123+02:00", true),
      ("date-time", "2020-12-31T23:59:60-11:30", true), ("date-time", "2020-01-01T10:00:00", false),
      ("date-time", "2020-13-01T10:00:00Z", false), ("date-time", "2020-01-01 10:00:00Z", false),
      ("date-time", "2020-01-01T24:00:00Z", false), ("date-time", "2020-01-01T10:00:00.Z", false),
      ("date-time", "yesterday", false), ("date", "2024-02-29", true), ("date", "2024-02-00", false),
      ("date", "2024-2-28", false), ("date", "2024-02-28Z", false), ("time", "10:00:00", true),
      ("time", "10:00:00.5+01:00", true), ("time", "10:60:00", false), ("time", "10:00", false),
      ("uuid", "0b6c2a52-6d43-4b8e-9a53-2f7f0a6f5d10", true), ("uuid", "0B6C2A52-6D43-4B8E-9A53-2F7F0A6F5D10", true),
      ("uuid", "0b6c2a52-6d43-4b8e-9a53-2f7f0a6f5d1", false), ("uuid", "0b6c2a52x6d43-4b8e-9a53-2f7f0a6f5d10", false),
      ("uuid", "gb6c2a52-6d43-4b8e-9a53-2f7f0a6f5d10", false), ("email", "breeder@example.com", true),
      ("email", "a.b+c@mail.example.co", true), ("email", "nobody", false), ("email", "a@b", false),
      ("email", "a@@b.com", false), ("email", "a b@c.com", false), ("email", "@b.com", false),
      ("email", "a@.com", false), ("email", "a@b.", false), ("uri", "https://cats.example.com/a?b=c#d", true),
      ("uri", "urn:isbn:0451450523", true), ("uri", "https://example.com/%20x", true),
      ("uri", "https://example.com/ä", true), ("uri", "not a uri", false), ("uri", "/relative/path", false),
      ("uri", "https://example.com/a b", false), ("uri", "https://example.com/%2", false),
      ("uri", "1http://x", false), ("uri", "https://example.com/<x>", false), ("ipv4", "192.168.0.1", true),
      ("ipv4", "0.0.0.0", true), ("ipv4", "255.255.255.255", true), ("ipv4", "10.01.0.1", true),
      ("ipv4", "256.1.1.1", false), ("ipv4", "1.2.3", false), ("ipv4", "1.2.3.4.5", false),
      ("ipv4", "001.2.3.4", false), ("ipv4", "1..3.4", false),
    ])
    func formats(format: String, value: String, valid: Bool) throws {
      #expect(try Self.passes(value, format) == valid, "\(format) \(value)")
    }
  }
#endif
