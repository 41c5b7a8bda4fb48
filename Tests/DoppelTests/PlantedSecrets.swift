import Foundation

/// A cassette with one entry per kind of secret issue 29 found `doppel record` writing in clear,
/// for the redaction and lint tests.
enum PlantedSecrets {
  /// One entry per kind issue 29 found written in clear, and what must not survive.
  static let planted: [(secret: String, entry: String)] = [
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
  static let secrets = [
    "pw-Json-0101", "pp-Json-0102", "rf-Json-0103", "ot-Json-0104", "fp-Form-0105", "fp-Form-0106",
    "sk-proj-Abc123def456GHI789jkl012MNO345pqr", "sk-ant-api03-Abc123def456GHI789jkl012-MNO345",
    "glpat-Abc123def456GHI789jk", "us-Pass-0107", "us-Pass-0108", "oc-Code-0109", "os-State-0110", "cm-Meta-0111",
    "ch-Csrf-0112", "ci-Input-0113", "bi-Pass-0114", "ghp_abcdefghijklmnopqrstuvwxyz0123456789", "b6-Text-0115",
    "gz-Secret-0042", "br-Opaque",
  ]

  static var plantedCassette: Data {
    Data(#"{"log": {"version": "1.2", "creator": {"name": "hand", "version": "1"}, "entries": ["#.utf8)
      + Data(planted.map(\.entry).joined(separator: ",\n").utf8) + Data("]}}".utf8)
  }
}
