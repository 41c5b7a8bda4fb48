import Doppel
import Foundation
import Testing

/// The limit on file bodies kept in memory (``Response/fileBodyMemoryLimit``), on a budget of the
/// test's own, so that the counting is checked without making hundreds of megabytes of files.
@Suite struct FileMemoryBudgetTests {
  @Test func bytesAreKeptWithinTheLimitAndGivenBackWhenLetGo() throws {
    let budget = FileMemoryBudget(limit: 100)
    var first = budget.keep(60)
    #expect(first?.count == 60)
    #expect(budget.kept == 60)
    // Beyond the limit: not kept, and nothing counted.
    #expect(budget.keep(41) == nil)
    #expect(budget.kept == 60)
    let second = try #require(budget.keep(40))
    #expect(budget.kept == 100)
    // Letting go of what was kept gives its bytes back.
    first = nil
    #expect(budget.kept == 40)
    #expect(budget.keep(60) != nil)
    // The value made just above was let go at once.
    #expect(budget.kept == 40)
    withExtendedLifetime(second) {}
  }

  @Test func theProcessWideLimitIs256MiB() {
    #expect(Response.fileBodyMemoryLimit == 256 * 1024 * 1024)
    #expect(FileMemoryBudget.shared.limit == Response.fileBodyMemoryLimit)
  }
}
