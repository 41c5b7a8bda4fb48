import Doppel
import Foundation
import Testing

/// A manifest names files (fixtures, templates, cassettes, proxy recordings) only inside its own
/// folder; a stub read from the admin API only inside the folder the server was given.
@Suite struct ManifestFileContainmentTests {
  /// A folder holding `project/` (the manifest's folder, with `inside.json`) and `secret.txt`
  /// beside it, removed when `body` returns.
  private func withProject(_ body: (_ project: URL, _ secret: URL) throws -> Void) throws {
    let root = FileManager.default.temporaryDirectory.appendingPathComponent("doppel-contain-\(UUID().uuidString)")
    let project = root.appendingPathComponent("project")
    try FileManager.default.createDirectory(
      at: project.appendingPathComponent("nested"), withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: root) }
    try Data("inside".utf8).write(to: project.appendingPathComponent("nested/inside.json"))
    let secret = root.appendingPathComponent("secret.txt")
    try Data("secret".utf8).write(to: secret)
    try body(project, secret)
  }

  private func load(_ stub: String, in project: URL) throws -> Backend {
    let manifest = try Manifest(
      data: Data(#"{"stubs": [\#(stub)]}"#.utf8), url: project.appendingPathComponent("doppel.json"))
    return try Backend(manifest: manifest, scenario: .base, issueReporter: .ignore)
  }

  @Test func filesInsideTheFolderStillLoad() throws {
    try withProject { project, _ in
      _ = try load(#"{"request": "/a", "response": {"file": "nested/inside.json"}}"#, in: project)
      _ = try load(#"{"request": "/a", "response": {"file": "nested/../nested/inside.json"}}"#, in: project)
      let absolute = project.appendingPathComponent("nested/inside.json").path
      _ = try load(#"{"request": "/a", "response": {"file": "\#(absolute)"}}"#, in: project)
      try FileManager.default.createSymbolicLink(
        atPath: project.appendingPathComponent("link.json").path, withDestinationPath: "nested/inside.json")
      _ = try load(#"{"request": "/a", "response": {"file": "link.json"}}"#, in: project)
    }
  }

  @Test func dotDotAnAbsolutePathAndASymbolicLinkOutsideAreRefused() throws {
    try withProject { project, secret in
      let manifest = project.appendingPathComponent("doppel.json").path
      let fix =
        "A manifest names files only inside its own folder; move the file into \(project.path) (or a folder in it) and name it relative to the manifest."
      #expect(
        throws: DoppelError(
          #"\#(manifest):1:51: stubs[0].response.file: "../secret.txt" is outside the manifest's folder \#(project.path): ".." leads out of it. \#(fix)"#
        )
      ) { try load(#"{"request": "/a", "response": {"file": "../secret.txt"}}"#, in: project) }
      #expect(
        throws: DoppelError(
          #"\#(manifest):1:51: stubs[0].response.file: "/etc/passwd" is outside the manifest's folder \#(project.path): it is an absolute path outside it. \#(fix)"#
        )
      ) { try load(#"{"request": "/a", "response": {"file": "/etc/passwd"}}"#, in: project) }
      try FileManager.default.createSymbolicLink(
        atPath: project.appendingPathComponent("innocent.json").path, withDestinationPath: secret.path)
      #expect(
        throws: DoppelError(
          #"\#(manifest):1:51: stubs[0].response.file: "innocent.json" is outside the manifest's folder \#(project.path): a symbolic link leads out of it, to \#(secret.path). \#(fix)"#
        )
      ) { try load(#"{"request": "/a", "response": {"file": "innocent.json"}}"#, in: project) }
      // A template is a file too; so are a proxy's recording and a cassette.
      #expect(throws: DoppelError.self) {
        try load(#"{"request": "/a", "response": {"file": "../secret.txt", "template": true}}"#, in: project)
      }
      #expect(
        throws: DoppelError(
          #"\#(manifest):1:91: stubs[0].response.proxy.record: "../../x.har" is outside the manifest's folder \#(project.path): ".." leads out of it. \#(fix)"#
        )
      ) {
        try load(
          #"{"request": "/a", "response": {"proxy": {"to": "http://127.0.0.1:9", "record": "../../x.har"}}}"#,
          in: project)
      }
      #expect(throws: DoppelError.self) {
        try Manifest(
          data: Data(#"{"cassettes": ["../x.har"]}"#.utf8), url: project.appendingPathComponent("doppel.json"))
      }
    }
  }

  @Test func aDanglingSymbolicLinkCannotBeARecordingTarget() throws {
    try withProject { project, secret in
      let target = secret.deletingLastPathComponent().appendingPathComponent("planted.har")
      try FileManager.default.createSymbolicLink(
        atPath: project.appendingPathComponent("cassette.har").path, withDestinationPath: target.path)
      #expect(
        throws: DoppelError(
          #"\#(project.path)/doppel.json:1:91: stubs[0].response.proxy.record: "cassette.har" is outside the manifest's folder \#(project.path): a symbolic link leads out of it, to a file that does not exist. A manifest names files only inside its own folder; move the file into \#(project.path) (or a folder in it) and name it relative to the manifest."#
        )
      ) {
        try load(
          #"{"request": "/a", "response": {"proxy": {"to": "http://127.0.0.1:9", "record": "cassette.har"}}}"#,
          in: project)
      }
    }
  }

  @Test func aStubFromTheAdminAPINamesFilesOnlyInItsFolderAndProxiesOnlyToAllowedHosts() throws {
    try withProject { project, secret in
      func read(_ json: String, directory: URL?, proxyHosts: [String] = []) throws(DoppelError) {
        _ = try StubDefinition(
          parsing: Data(json.utf8), source: "request body", directory: directory, proxyHosts: proxyHosts)
      }
      #expect(
        throws: DoppelError(
          #"request body:1:40: response.file: a stub added through the admin API may name no file: the server has no folder for its files. Start the server with one (doppel serve --admin-files DIR, or StubServer.AdminAPI.fixtureDirectory) and name a file inside it, or send the body as "json" or "text"."#
        )
      ) { try read(#"{"request": "/a", "response": {"file": "/etc/passwd"}}"#, directory: nil) }
      try read(#"{"request": "/a", "response": {"file": "nested/inside.json"}}"#, directory: project)
      #expect(
        throws: DoppelError(
          #"request body:1:40: response.file: "../secret.txt" is outside the folder for files of stubs added through the admin API, \#(project.path): ".." leads out of it. Such a stub names files only inside that folder; move the file into it and name it relative to it."#
        )
      ) { try read(#"{"request": "/a", "response": {"file": "../secret.txt"}}"#, directory: project) }
      try FileManager.default.createSymbolicLink(
        atPath: project.appendingPathComponent("innocent.json").path, withDestinationPath: secret.path)
      #expect(throws: DoppelError.self) {
        try read(#"{"request": "/a", "response": {"file": "innocent.json"}}"#, directory: project)
      }
      // Proxies: only to allowed hosts, recording only into a .har inside the folder.
      #expect(
        throws: DoppelError(
          #"request body:1:48: response.proxy.to: a stub added through the admin API may proxy only to the hosts the server allows (none), and 127.0.0.1 is not one. Start the server with --admin-proxy 127.0.0.1 (StubServer.AdminAPI.proxyHosts) to allow it."#
        )
      ) { try read(#"{"request": "/a", "response": {"proxy": {"to": "http://127.0.0.1:9"}}}"#, directory: project) }
      try read(
        #"{"request": "/a", "response": {"proxy": {"to": "http://LOCALHOST:9", "record": "api.har"}}}"#,
        directory: project, proxyHosts: ["localhost"])
      #expect(
        throws: DoppelError(
          #"request body:1:80: response.proxy.record: "notes.txt" is not a .har file; a stub added through the admin API records only into a HAR cassette (a path ending in .har) inside the server's folder for its files."#
        )
      ) {
        try read(
          #"{"request": "/a", "response": {"proxy": {"to": "http://localhost:9", "record": "notes.txt"}}}"#,
          directory: project, proxyHosts: ["localhost"])
      }
      #expect(throws: DoppelError.self) {
        try read(
          #"{"request": "/a", "response": {"proxy": {"to": "http://localhost:9", "record": "/tmp/x.har"}}}"#,
          directory: project, proxyHosts: ["localhost"])
      }
      #expect(throws: DoppelError.self) {
        try read(
          #"{"request": "/a", "response": {"proxy": {"to": "http://localhost:9", "record": "x.har"}}}"#,
          directory: nil, proxyHosts: ["localhost"])
      }
    }
  }

  @Test func aStubFromTheAdminAPISetsNoAccessControlField() throws {
    #expect(
      throws: DoppelError(
        #"request body:1:43: response.headers["Access-Control-Allow-Origin"]: a stub added through the admin API cannot set Access-Control-Allow-Origin: a web page could use it to read the server's answers from another origin. Start the server with --cors ORIGIN (StubServer.Configuration.corsOrigins) to let a browser app at ORIGIN read the stubs, or add the header in a manifest."#
      )
    ) {
      _ = try StubDefinition(
        parsing: Data(#"{"request": "/a", "response": {"headers": {"Access-Control-Allow-Origin": "*"}}}"#.utf8),
        source: "request body", directory: nil)
    }
    // A manifest is the user's own: it may.
    _ = try Manifest(
      data: Data(
        #"{"stubs": [{"request": "/a", "response": {"headers": {"Access-Control-Allow-Origin": "*"}}}]}"#.utf8),
      url: URL(fileURLWithPath: "/tmp/doppel.json"))
  }
}
