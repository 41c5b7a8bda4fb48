#if Server
  import Foundation
  import Testing

  /// Each case of ``ConformanceCases`` through each door, compared with the case's reference: a real
  /// HTTP server on loopback serving the same answers (or, for a case no server can take, the
  /// URLSession door). A door that is known to differ declares it in the case, with the reason, and
  /// the test checks that the difference is still exactly that.
  @Suite struct ConformanceTests {
    @Test(arguments: ConformanceRun.all(ConformanceCases.all))
    func behavesLikeTheReference(_ run: ConformanceRun) async throws {
      let conformanceCase = run.conformanceCase
      async let referenceObservations = ConformanceDoors.observe(conformanceCase, through: conformanceCase.reference)
      let observed = try await ConformanceDoors.observe(conformanceCase, through: run.door)
      var expected = try await referenceObservations
      if let deviation = conformanceCase.deviations[run.door] {
        let reference = expected
        deviation.adjust(&expected)
        #expect(
          observed != reference,
          "\(run.door) no longer differs from \(conformanceCase.reference) (\(deviation.reason)): remove the deviation")
      }
      #expect(observed.count == expected.count)
      for (index, (seen, wanted)) in zip(observed, expected).enumerated() where seen != wanted {
        Issue.record(
          """
          \(conformanceCase.name), step \(index + 1), through \(run.door):
          \(seen)
          expected (from \(conformanceCase.reference)):
          \(wanted)
          """)
      }
    }

    @Test func theTableCoversEnoughCases() {
      let names = ConformanceCases.all.map(\.name)
      #expect(names.count >= 60)
      #expect(Set(names).count == names.count, "case names are unique")
    }
  }
#endif
