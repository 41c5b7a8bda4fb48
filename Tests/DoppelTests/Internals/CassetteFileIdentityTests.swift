import Foundation
import Testing

@testable import Doppel
@testable import DoppelCore
@testable import DoppelManifest
@testable import DoppelRecording
@_spi(DoppelInternals) @testable import DoppelToolkit

/// The cassette writer tells an unchanged file by its identity (device, inode, size, time), which no
/// public call shows.
@Suite struct CassetteFileIdentityTests {
  @Test func nothingNewWritesNothing() throws {
    let url = HARRecordTests.folder().appendingPathComponent("quiet.har")
    let writer = CassetteWriter(url: url, replacing: false)
    try writer.record([CassetteWriterTests.entry("/a")], redaction: .default)
    let identity = try #require(FileIdentity(path: url.path))
    try writer.record([], redaction: .default)
    try writer.record([], redaction: .default)
    #expect(FileIdentity(path: url.path) == identity)
    // A missing file is written even with nothing in it.
    let empty = HARRecordTests.folder().appendingPathComponent("sub/empty.har")
    try CassetteWriter(url: empty, replacing: false).record([], redaction: .default)
    #expect(try Cassette.load(from: empty).entries.isEmpty)
  }
}
