#if Server
  import Doppel
  import Foundation
  import NIOCore
  import NIOHTTP1

  extension StubHTTPHandler {
    /// Answers a request under the admin API's prefix: never matched against stubs, never
    /// journaled.
    func answerAdmin(_ head: HTTPRequestHead, body: ByteBuffer?, context: ChannelHandlerContext) {
      let data = body.flatMap { $0.readableBytes > 0 ? Data($0.readableBytesView) : nil }
      let trust = AdminRequestHead(
        method: head.method.rawValue, target: head.uri, host: head.headers.first(name: "host"),
        origins: head.headers["origin"], fetchSites: head.headers["sec-fetch-site"],
        authorizations: head.headers["authorization"], contentType: head.headers.first(name: "content-type"),
        hasBody: data != nil, localPort: context.channel.localAddress?.port)
      let route = core.admin.route(method: head.method.rawValue, target: head.uri, accept: head.headers["accept"])
      if let refusal = core.admin.refusal(of: trust, requiringToken: route.requiresToken) {
        writeAdmin(refusal, for: head, context: context)
        return
      }
      switch route {
      case .dashboard(let file):
        writeAdmin(core.admin.dashboardAnswer(file, method: head.method.rawValue), for: head, context: context)
      case .events where head.method == .GET:
        startAdminEvents(head, context: context)
      case .events:
        writeAdmin(AdminController.onlyGET(head.method.rawValue), for: head, context: context)
      case .api:
        let answer = core.admin.answer(
          method: head.method.rawValue, target: head.uri, body: data, backend: core.backend)
        writeAdmin(answer, for: head, context: context)
      }
    }

    /// Answers a request outside the admin API's prefix on the admin API's own port: 404, and where
    /// the stubs are.
    func answerNotAdmin(_ head: HTTPRequestHead, context: ChannelHandlerContext) {
      let prefix = core.admin.settings.pathPrefix ?? "/"
      let stubs = core.localAuthority
      let answer = AdminController.Answer(
        status: 404,
        body: [
          "error": .string(
            "This port serves the admin API only, under \(prefix). The stubs are served at \(core.scheme)://\(stubs)."
          )
        ])
      writeAdmin(answer, for: head, context: context)
    }

    func writeAdmin(_ answer: AdminController.Answer, for head: HTTPRequestHead, context: ChannelHandlerContext) {
      keepAlive = head.isKeepAlive && !head.asksToSwitchProtocols
      headSent = false
      let encoder = JSONEncoder()
      encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
      var bytes =
        answer.raw ?? (try? encoder.encode(answer.body)) ?? Data(#"{"error":"The answer could not be encoded."}"#.utf8)
      bytes.append(UInt8(ascii: "\n"))
      var headers = NIOHTTP1.HTTPHeaders()
      headers.add(name: "Content-Type", value: answer.contentType)
      headers.add(name: "Cache-Control", value: "no-store")
      if !answer.allow.isEmpty { headers.add(name: "Allow", value: answer.allow.joined(separator: ", ")) }
      for (name, value) in answer.headers { headers.add(name: name, value: value) }
      headers.add(name: "Content-Length", value: String(bytes.count))
      writeHead(answer.status, headers, context: context)
      if head.method != .HEAD {
        // A journal may be megabytes: written in pieces, as the client takes them.
        writeBodyThenEnd(bytes, context: context)
      } else {
        end(context)
      }
    }
  }
#endif
