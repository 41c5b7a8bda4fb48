import Doppel
import Foundation

/// HAR documents for the HAR and cassette tests.
enum HARFixtures {
  /// Shaped like a browser's "Save all as HAR": pages, a creator and browser, underscore fields,
  /// HTTP/2 pseudo-headers, parsed cookies, timings, a gzip response (decoded text), a base64
  /// image, repeated headers, a failed request, and the same request twice with different answers.
  static let browserExport = #"""
    {
      "log": {
        "version": "1.2",
        "creator": { "name": "WebInspector", "version": "537.36" },
        "browser": { "name": "Chrome", "version": "126.0" },
        "pages": [
          { "startedDateTime": "2024-05-01T10:00:00.000Z", "id": "page_1", "title": "https://example.com/",
            "pageTimings": { "onContentLoad": 120.5, "onLoad": 240.25 } }
        ],
        "entries": [
          {
            "_initiator": { "type": "script", "stack": { "callFrames": [] } },
            "_priority": "High",
            "_resourceType": "fetch",
            "cache": {},
            "connection": "443",
            "pageref": "page_1",
            "request": {
              "method": "GET",
              "url": "https://API.example.com:443/breeds?sort=name&page=2",
              "httpVersion": "http/2.0",
              "headers": [
                { "name": ":authority", "value": "api.example.com" },
                { "name": ":method", "value": "GET" },
                { "name": "accept", "value": "application/json" },
                { "name": "accept-encoding", "value": "gzip, deflate, br" }
              ],
              "queryString": [ { "name": "sort", "value": "name" }, { "name": "page", "value": "2" } ],
              "cookies": [],
              "headersSize": -1,
              "bodySize": 0
            },
            "response": {
              "status": 200,
              "statusText": "",
              "httpVersion": "http/2.0",
              "headers": [
                { "name": "content-type", "value": "application/json; charset=utf-8" },
                { "name": "content-encoding", "value": "gzip" },
                { "name": "content-length", "value": "41" },
                { "name": "x-dup", "value": "a" },
                { "name": "x-dup", "value": "b" }
              ],
              "cookies": [],
              "content": { "size": 29, "mimeType": "application/json", "compression": -12,
                "text": "[{\"name\":\"Abyssinian\"}, 2]" },
              "redirectURL": "",
              "headersSize": -1,
              "bodySize": 41,
              "_transferSize": 141,
              "_error": null
            },
            "serverIPAddress": "93.184.216.34",
            "startedDateTime": "2024-05-01T10:00:00.100Z",
            "time": 35.118,
            "timings": { "blocked": 1.2, "dns": -1, "ssl": -1, "connect": -1, "send": 0.1, "wait": 33.5,
              "receive": 0.318, "_blocked_queueing": 0.9 }
          },
          {
            "request": {
              "method": "GET", "url": "https://cdn.example.com/cat.png", "httpVersion": "HTTP/1.1",
              "headers": [], "queryString": [], "cookies": [], "headersSize": -1, "bodySize": 0
            },
            "response": {
              "status": 200, "statusText": "OK", "httpVersion": "HTTP/1.1",
              "headers": [ { "name": "Content-Type", "value": "image/png" } ],
              "cookies": [],
              "content": { "size": 8, "mimeType": "image/png", "text": "iVBORw0KGgo=", "encoding": "base64" },
              "redirectURL": "", "headersSize": -1, "bodySize": 8
            },
            "cache": {}, "timings": { "send": 0, "wait": 5, "receive": 0 },
            "startedDateTime": "2024-05-01T10:00:00.200Z", "time": 5
          },
          {
            "request": {
              "method": "POST", "url": "https://api.example.com/orders", "httpVersion": "HTTP/1.1",
              "headers": [ { "name": "Content-Type", "value": "application/json" } ],
              "queryString": [], "cookies": [], "headersSize": -1, "bodySize": 13,
              "postData": { "mimeType": "application/json", "text": "{\"sku\":\"A1\"}", "params": [] }
            },
            "response": {
              "status": 201, "statusText": "Created", "httpVersion": "HTTP/1.1",
              "headers": [ { "name": "Location", "value": "/orders/7" }, { "name": ":status", "value": "201" } ],
              "cookies": [], "content": { "size": 0, "mimeType": "x-unknown" },
              "redirectURL": "/orders/7", "headersSize": -1, "bodySize": 0
            },
            "cache": {}, "timings": { "send": 0, "wait": 5, "receive": 0 },
            "startedDateTime": "2024-05-01T10:00:00.300Z", "time": 5
          },
          {
            "request": {
              "method": "GET", "url": "https://api.example.com/status", "httpVersion": "HTTP/1.1",
              "headers": [], "queryString": [], "cookies": [], "headersSize": -1, "bodySize": 0
            },
            "response": {
              "status": 503, "statusText": "Service Unavailable", "httpVersion": "HTTP/1.1", "headers": [],
              "cookies": [], "content": { "size": 4, "mimeType": "text/plain", "text": "busy" },
              "redirectURL": "", "headersSize": -1, "bodySize": 4
            },
            "cache": {}, "timings": { "send": 0, "wait": 5, "receive": 0 },
            "startedDateTime": "2024-05-01T10:00:00.400Z", "time": 5
          },
          {
            "request": {
              "method": "GET", "url": "https://api.example.com/status", "httpVersion": "HTTP/1.1",
              "headers": [], "queryString": [], "cookies": [], "headersSize": -1, "bodySize": 0
            },
            "response": {
              "status": 200, "statusText": "OK", "httpVersion": "HTTP/1.1", "headers": [],
              "cookies": [], "content": { "size": 2, "mimeType": "text/plain", "text": "up" },
              "redirectURL": "", "headersSize": -1, "bodySize": 2
            },
            "cache": {}, "timings": { "send": 0, "wait": 5, "receive": 0 },
            "startedDateTime": "2024-05-01T10:00:00.500Z", "time": 5
          },
          {
            "request": {
              "method": "GET", "url": "https://down.example.com/", "httpVersion": "",
              "headers": [], "queryString": [], "cookies": [], "headersSize": -1, "bodySize": 0
            },
            "response": {
              "status": 0, "statusText": "", "httpVersion": "", "headers": [], "cookies": [],
              "content": { "size": 0, "mimeType": "x-unknown" }, "redirectURL": "", "headersSize": -1,
              "bodySize": -1, "_error": "net::ERR_CONNECTION_REFUSED"
            },
            "cache": {}, "timings": { "send": 0, "wait": 0, "receive": 0 },
            "startedDateTime": "2024-05-01T10:00:00.600Z", "time": 0
          }
        ]
      }
    }
    """#

  /// A cassette built in code, with everything Doppel writes.
  static func madeInCode() throws -> Cassette {
    var cassette = Cassette()
    let get = Request(
      method: .get, url: URL(string: "https://api.example.com/breeds?page=1")!,
      headers: ["Accept": "application/json", "X-Trace": "1", "X-Trace": "2"])
    cassette.entries.append(
      try HAREntry(
        request: get,
        response: .json(["breeds": ["Abyssinian"]]).header("Set-Cookie", "a=1").header("Set-Cookie", "b=2"),
        startedAt: Date(timeIntervalSince1970: 1_700_000_000), duration: 12.5))
    let post = Request(
      method: .post, url: URL(string: "https://api.example.com/upload")!,
      headers: ["Content-Type": "application/octet-stream"], body: Data([0, 1, 2, 255]))
    cassette.entries.append(
      try HAREntry(
        request: post, response: .data(Data([0xFF, 0xD8, 0x00])), startedAt: Date(timeIntervalSince1970: 1_700_000_001))
    )
    cassette.entries.append(
      HAREntry(
        request: Request(url: URL(string: "https://api.example.com/down")!), error: URLError(.timedOut),
        startedAt: Date(timeIntervalSince1970: 1_700_000_002)))
    cassette.har.log.extra["comment"] = "made in code"
    cassette.entries[0].extra["_custom"] = ["kept": true, "n": 1.5]
    return cassette
  }
}
