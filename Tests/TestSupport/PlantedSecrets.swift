import Doppel
import Foundation

/// One request (and its answer) carrying secrets that no output of Doppel may show: the corpus the
/// cassette, journal HAR, near-miss, dashboard, request-log and lint tests share (issue 44, point 5).
public struct PlantedSecret: Sendable {
  /// What kind of secret it is, for failure messages.
  public let kind: String
  /// The secret values; none may appear in any output.
  public let secrets: [String]
  /// The request that carries them (in its URL, a header or its body).
  public let request: Request
  /// The answer, which carries some of them too (a `Location`, a body).
  public let response: Response
}

/// The planted-secrets corpus: every kind of secret redaction knows, in the request (so that
/// near-miss reports, the dashboard and the request log see it) and, for the kinds that come back,
/// in the answer.
public enum PlantedSecrets {
  static func request(
    _ method: HTTPMethod = .get, _ url: String, headers: [String: String] = [:], body: String? = nil
  ) -> Request {
    var fields = HTTPHeaders()
    for (name, value) in headers.sorted(by: { $0.key < $1.key }) { fields.add(name, value) }
    return Request(method: method, url: URL(string: url)!, headers: fields, body: body.map { Data($0.utf8) })
  }

  static func plant(
    _ kind: String, _ secrets: [String], _ request: Request, _ response: Response = .text("ok")
  ) -> PlantedSecret {
    PlantedSecret(kind: kind, secrets: secrets, request: request, response: response)
  }

  /// A high-entropy value of no known format (44 characters of base64).
  public static let unknownKey = "q8Zr4Lw2Xv9Nt6Ym1Kp3Hs7Dg5Bf0Jc2Ue8Wa4Ri6Tq1"

  /// One request per kind of secret: the 11 kinds issue 44 found in clear, the names and places
  /// every output must hide, and values of unknown formats under names like a key's.
  public static let all: [PlantedSecret] = [
    plant(
      "multipart form field password", ["mp-Pass-4401"],
      request(
        .post, "https://api.example/upload",
        headers: ["Content-Type": "multipart/form-data; boundary=XyZ"],
        body:
          "--XyZ\r\nContent-Disposition: form-data; name=\"user\"\r\n\r\nann\r\n--XyZ\r\nContent-Disposition: form-data; name=\"password\"\r\n\r\nmp-Pass-4401\r\n--XyZ--\r\n"
      )),
    plant(
      "XML <password>", ["xm-Pass-4402"],
      request(
        .post, "https://api.example/soap", headers: ["Content-Type": "text/xml"],
        body: "<login><user>ann</user><password>xm-Pass-4402</password></login>"),
      .text("<ok><password>xm-Pass-4402</password></ok>", contentType: "application/xml")),
    plant(
      "token in a Location fragment", ["lf-Token-4403"],
      request(
        .get, "https://api.example/authorize", headers: ["Referer": "https://app.example/cb#access_token=lf-Token-4403"]
      ),
      .text(
        "", status: 302,
        headers: ["Location": "https://app.example/cb#access_token=lf-Token-4403&token_type=bearer"])),
    plant(
      "token in a Link header", ["lk-Token-4404"],
      request(
        .get, "https://api.example/items",
        headers: ["Link": "<https://api.example/items?page=2&access_token=lk-Token-4404>; rel=\"next\""]),
      .text("[]", headers: ["Link": "<https://api.example/items?page=2&access_token=lk-Token-4404>; rel=\"next\""])),
    plant(
      "token in a Refresh header", ["rh-Token-4405"],
      request(
        .get, "https://api.example/wait", headers: ["Refresh": "0; url=https://app.example/#id_token=rh-Token-4405"]),
      .text("wait", headers: ["Refresh": "0; url=https://app.example/#id_token=rh-Token-4405"])),
    plant(
      "Slack webhook", ["T0ABCD123/B0EFGH456/Zx9Yw8Vu7Ts6Rq5Po4Nm3Lk2"],
      request(
        .post, "https://api.example/hooks",
        body: #"{"url": "https://hooks.slack.com/services/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"}"#)),
    plant(
      "SendGrid API key", ["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"],
      request(
        .post, "https://api.example/mail", headers: ["Content-Type": "text/plain"],
        body: "use 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 for mail")),
    plant(
      "Twilio account SID and API key",
      ["AC0123456789abcdef0123456789abcdef", "SKfedcba9876543210fedcba9876543210"],
      request(
        .post, "https://api.example/2010-04-01/Accounts/AC0123456789abcdef0123456789abcdef/Messages.json",
        body: "note=SKfedcba9876543210fedcba9876543210")),
    plant(
      "Hugging Face token", ["hf_AbCdEfGhIjKlMnOpQrStUvWxYz01234567"],
      request(.get, "https://api.example/models", headers: ["X-Note": "hf_AbCdEfGhIjKlMnOpQrStUvWxYz01234567"])),
    plant(
      "Shopify token", ["shpat_0123456789abcdef0123456789abcdef"],
      request(.get, "https://api.example/shop?note=shpat_0123456789abcdef0123456789abcdef")),
    plant(
      "DigitalOcean token", ["dop_v1_" + String(repeating: "0123456789abcdef", count: 4)],
      request(
        .post, "https://api.example/droplets",
        body: #"{"note": "dop_v1_"# + String(repeating: "0123456789abcdef", count: 4) + #""}"#)),
    plant(
      "Telegram bot token", ["123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw1"],
      request(.get, "https://api.example/bot123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw1/getMe")),
    plant(
      "Azure storage connection string",
      ["Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw=="],
      request(
        .post, "https://api.example/config", headers: ["Content-Type": "text/plain"],
        body:
          "DefaultEndpointsProtocol=https;AccountName=devstore;AccountKey=Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==;EndpointSuffix=core.windows.net"
      )),
    plant(
      "Authorization header", ["ah-Bearer-4414abcdef"],
      request(.get, "https://api.example/me", headers: ["Authorization": "Bearer ah-Bearer-4414abcdef"])),
    plant(
      "secret header by name", ["sh-Session-4415"],
      request(.get, "https://api.example/s", headers: ["X-Session-Token": "sh-Session-4415"])),
    plant(
      "access_token in the query", ["qt-Token-4416"],
      request(.get, "https://api.example/feed?access_token=qt-Token-4416&page=1")),
    plant(
      "JSON password", ["js-Pass-4417"],
      request(
        .post, "https://api.example/login", headers: ["Content-Type": "application/json"],
        body: #"{"user": "ann", "password": "js-Pass-4417"}"#),
      .json(raw: #"{"ok": true, "password": "js-Pass-4417"}"#)),
    plant(
      "form password", ["fm-Pass-4418"],
      request(
        .post, "https://api.example/form", headers: ["Content-Type": "application/x-www-form-urlencoded"],
        body: "user=ann&password=fm-Pass-4418")),
    plant(
      "unknown format in a header", [unknownKey + "H"],
      request(.get, "https://api.example/fn", headers: ["X-Functions-Key": unknownKey + "H"])),
    plant(
      "unknown format in the query", [unknownKey + "Q"],
      request(.get, "https://api.example/q?subscription_key=" + unknownKey + "Q")),
    plant(
      "unknown format in a JSON field", [unknownKey + "J"],
      request(
        .post, "https://api.example/j", headers: ["Content-Type": "application/json"],
        body: #"{"masterKey": ""# + unknownKey + #"J"}"#)),
    plant(
      "unknown format in an XML element", [unknownKey + "X"],
      request(
        .post, "https://api.example/x", headers: ["Content-Type": "application/xml"],
        body: "<cfg><AccessKey>" + unknownKey + "X</AccessKey></cfg>")),
    plant(
      "unknown format in a multipart part", [unknownKey + "M"],
      request(
        .post, "https://api.example/m", headers: ["Content-Type": "multipart/form-data; boundary=b1"],
        body: "--b1\r\nContent-Disposition: form-data; name=\"upload_key\"\r\n\r\n" + unknownKey + "M\r\n--b1--\r\n")),
    plant(
      "unknown format in a form field", [unknownKey + "F"],
      request(
        .post, "https://api.example/f", headers: ["Content-Type": "application/x-www-form-urlencoded"],
        body: "user=ann&signing_key=" + unknownKey + "F")),
  ]

  /// Values that look like ids, not secrets, under names like a key's: they must survive.
  public static let ordinary = request(
    .post, "https://api.example/orders?cache_key=orders-page-2",
    headers: ["Idempotency-Key": "3F2504E0-4F89-11D3-9A0C-0305E82C3301", "Content-Type": "application/json"],
    body: #"{"primaryKey": "order_12345", "keyboard": "qwerty-layout-en-us"}"#)

  // MARK: Issue 29's cassette

  /// A cassette with one entry per kind of secret issue 29 found `doppel record` writing in clear
  /// (written by hand, for the redaction and lint tests).
  /// One entry per kind issue 29 found written in clear, and what must not survive.
  public static let planted: [(secret: String, entry: String)] = [
    (
      "pw-Json-0101",
      #"{"request": {"method": "POST", "url": "https://a.com/j", "postData": {"mimeType": "application/json", "text": "{\"pwd\": \"pw-Json-0101\", \"passphrase\": \"pp-Json-0102\", \"refresh\": \"rf-Json-0103\", \"otp\": \"ot-Json-0104\"}"}}, "response": {"status": 200}}"#
    ),
    (
      "fp-Form-0105",
      #"{"request": {"method": "POST", "url": "https://a.com/f", "postData": {"mimeType": "application/x-www-form-urlencoded", "text": "user=ann&pwd=fp-Form-0105&passphrase=fp-Form-0106"}}, "response": {"status": 200}}"#
    ),
    (
      "sk-proj-Abc123def456GHI789jkl012MNO345pqr",
      #"{"request": {"method": "GET", "url": "https://a.com/k"}, "response": {"status": 200, "content": {"mimeType": "text/plain", "text": "sk-proj-Abc123def456GHI789jkl012MNO345pqr sk-ant-api03-Abc123def456GHI789jkl012-MNO345 glpat-Abc123def456GHI789jk"}}}"#
    ),
    (
      "us-Pass-0107",
      #"{"request": {"method": "GET", "url": "https://a.com/u"}, "response": {"status": 302, "headers": [{"name": "Location", "value": "https://ann:us-Pass-0107@b.com/x"}], "content": {"text": "see https://ann:us-Pass-0108@b.com/y"}}}"#
    ),
    (
      "oc-Code-0109",
      #"{"request": {"method": "GET", "url": "https://a.com/cb?code=oc-Code-0109&state=os-State-0110", "queryString": [{"name": "code", "value": "oc-Code-0109"}, {"name": "state", "value": "os-State-0110"}]}, "response": {"status": 200}}"#
    ),
    (
      "cm-Meta-0111",
      #"{"request": {"method": "GET", "url": "https://a.com/p"}, "response": {"status": 200, "headers": [{"name": "X-CSRF", "value": "ch-Csrf-0112"}], "content": {"mimeType": "text/html", "text": "<html><head><meta name=\"csrf-token\" content=\"cm-Meta-0111\"><meta name=\"viewport\" content=\"width=device-width\"></head><input type=hidden name=authenticity_token value=ci-Input-0113></html>"}}}"#
    ),
    (
      "ghp_abcdefghijklmnopqrstuvwxyz0123456789",
      #"{"request": {"method": "GET", "url": "https://a.com/b"}, "response": {"status": 200, "content": {"mimeType": "application/octet-stream", "encoding": "base64", "text": "AP8BcGFzc3dvcmQ9YmktUGFzcy0wMTE0AP5naHBfYWJjZGVmZ2hpamtsbW5vcHFyc3R1dnd4eXowMTIzNDU2Nzg5/w=="}}}"#
    ),
    (
      "b6-Text-0115",
      #"{"request": {"method": "GET", "url": "https://a.com/t"}, "response": {"status": 200, "content": {"mimeType": "text/plain", "text": "eyJwYXNzd29yZCI6ICJiNi1UZXh0LTAxMTUifQ=="}}}"#
    ),
    (
      "gz-Secret-0042",
      #"{"request": {"method": "GET", "url": "https://a.com/g"}, "response": {"status": 200, "content": {"mimeType": "application/gzip", "encoding": "base64", "text": "H4sIAAAAAAACA6tWKi1OLVKyUkrMy1PSUSpILC4uzy9KAQqkV+kGpyYXpZboGhiYGAHl8vJLUoHiJRmpCoWlmcnZCklF+eV5Cmn5FQqjYgMnplQLAIrtVAvEAQAA"}}}"#
    ),
    (
      "br-Opaque",
      #"{"request": {"method": "GET", "url": "https://a.com/z"}, "response": {"status": 200, "headers": [{"name": "Content-Encoding", "value": "br"}], "content": {"mimeType": "text/plain", "encoding": "base64", "text": "i4CAYnItT3BhcXVlAw=="}}}"#
    ),
  ]

  /// Every secret planted, as it appears (decoded) in the entries above.
  public static let secrets = [
    "pw-Json-0101", "pp-Json-0102", "rf-Json-0103", "ot-Json-0104", "fp-Form-0105", "fp-Form-0106",
    "sk-proj-Abc123def456GHI789jkl012MNO345pqr", "sk-ant-api03-Abc123def456GHI789jkl012-MNO345",
    "glpat-Abc123def456GHI789jk", "us-Pass-0107", "us-Pass-0108", "oc-Code-0109", "os-State-0110", "cm-Meta-0111",
    "ch-Csrf-0112", "ci-Input-0113", "bi-Pass-0114", "ghp_abcdefghijklmnopqrstuvwxyz0123456789", "b6-Text-0115",
    "gz-Secret-0042", "br-Opaque",
  ]

  /// ``planted`` as one HAR document.
  public static var plantedCassette: Data {
    Data(#"{"log": {"version": "1.2", "creator": {"name": "hand", "version": "1"}, "entries": ["#.utf8)
      + Data(planted.map(\.entry).joined(separator: ",\n").utf8) + Data("]}}".utf8)
  }

  /// The secrets of the corpus that `text` shows, with their kinds: empty when none leaks.
  public static func leaks(in text: String) -> [String] {
    all.flatMap { planted in planted.secrets.filter { text.contains($0) }.map { "\(planted.kind): \($0)" } }
  }
}
