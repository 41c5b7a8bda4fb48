import Doppel
import Foundation
import TestSupport
import Testing

@testable import DoppelTesting

/// Issue 44, point 5: the files attached to a failed test (the journal's HAR and each
/// `doppel-unmatched-N.txt`, which CI uploads) hold no planted secret of the shared corpus. Pins
/// the internal `attachments(for:)`, which the child-process tests of ``AttachmentTests`` read
/// back only on Linux.
@Suite struct AttachmentRedactionTests {
  @Test func theAttachmentsHoldNoPlantedSecret() async throws {
    let backend = Backend(issueReporter: .ignore)
    backend.stub(.get("https://api.example/elsewhere"), .ok)
    for planted in PlantedSecrets.all { _ = try? await backend.respond(to: planted.request.urlRequest) }
    let files = attachments(for: backend)
    #expect(files.filter { $0.name.hasPrefix("doppel-unmatched-") }.count == PlantedSecrets.all.count)
    for file in files {
      let text = String(decoding: file.contents, as: UTF8.self)
      #expect(PlantedSecrets.leaks(in: text) == [], "\(file.name)")
    }
  }
}
