#if canImport(Testing)
  import Doppel
  import Testing
  @_spi(DoppelInternals) import DoppelToolkit

  /// A test or suite trait that gives each test its own `Backend`, reachable as
  /// ``Doppel/Backend/current``, and fails the test for what went wrong with it.
  ///
  /// Create it with ``Testing/Trait/doppel`` or
  /// ``Testing/Trait/doppel(requireAllStubsUsed:unmatched:clock:attach:_:)``:
  ///
  /// ```swift
  /// @Suite(.doppel { $0.stub(.get("/breeds.json"), .json(Breed.all)) })   // suite-wide defaults
  /// struct BreedListTests {
  ///   @Test(.doppel { $0.stub(.get("/breeds.json"), .json([Breed]())) })  // overrides the default
  ///   func showsEmptyState() async throws {
  ///     let model = BreedListModel(session: Backend.current.session)
  ///     try await model.load()
  ///     #expect(model.state == .empty)
  ///   }
  /// }
  /// ```
  ///
  /// Each test, and each argument of a parameterized test, gets a new backend. The traits on its
  /// suites (outermost first) and then its own configure that one backend in turn, so stubs
  /// declared by a test take precedence over its suite's. Options left `nil` keep what an
  /// enclosing trait chose.
  ///
  /// When the test ends, each request no stub matched and each stub whose expectation was not met
  /// is recorded as an issue: an unmatched request once, with the near-miss report, at the closest
  /// stub's declaration (at the test when there is no stub), even when the test rethrows its
  /// error; an unmet expectation at the line that declared the stub. Invalid stubs and other problems the backend
  /// reports while the test runs are recorded at the same time, in the order they happened.
  public struct DoppelTrait: TestTrait, SuiteTrait, TestScoping {
    let requireAllStubsUsed: Bool?
    let unmatched: UnmatchedPolicy?
    let configure: @Sendable (Backend) async throws -> Void
    /// Makes the clock of each test case's backend, or returns `nil` to leave the choice to
    /// another `.doppel` trait (or the continuous clock).
    var makeClock: @Sendable () -> (any Clock<Duration>)? = { nil }
    /// The cassette `.doppel(cassette:)` inserts around the test, if any (see DoppelTrait+Cassette.swift).
    var cassette: CassetteOptions? = nil
    /// The pact `.doppel(pact:)` writes when the test returns, if any (see DoppelTrait+Pact.swift).
    var pact: PactOptions? = nil
    /// When the test gets its backend's traffic attached; `nil` keeps an enclosing trait's choice.
    var attach: AttachmentPolicy? = nil
    /// Whether `requireAllStubsUsed` counts the stubs a suite's trait declared too (see
    /// ``countingSuiteStubs()``); `nil` keeps an enclosing trait's choice, or `false`.
    var countsSuiteStubs: Bool? = nil
    /// Whether this trait is attached to a suite: set when Swift Testing prepares the suite, and
    /// shared by the copies of the trait its tests get.
    let isOnSuite = Locked(false)

    /// The backend the outermost `.doppel` trait made for the running test case.
    @TaskLocal static var enclosing: Backend?

    /// `true`: on a suite, the trait applies to every test in it and in its nested suites.
    public var isRecursive: Bool { true }

    /// Notes whether the trait is attached to a suite, whose stubs `requireAllStubsUsed` leaves
    /// out unless asked (``countingSuiteStubs()``).
    public func prepare(for test: Test) async throws {
      if test.isSuite { isOnSuite.withLock { $0 = true } }
    }

    /// Runs one test case with its backend: a new one, or the one an enclosing trait made, which
    /// this trait then configures further.
    public func provideScope(
      for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
      try await withBackend(for: test, testCase: testCase, function)
    }

    /// Gives `body` the test case's backend and, for the outermost trait, reports the backend's
    /// issues when it ends.
    func withBackend(
      for test: Test, testCase: Test.Case?, _ body: @Sendable () async throws -> Void,
      report: @Sendable (DoppelIssue) -> Void = { reportIssue($0.message, at: $0.location) }
    ) async throws {
      // A suite itself (no test case) gets no backend: only its test cases do.
      guard testCase != nil else { return try await body() }
      if let backend = Self.enclosing {
        return try await withPact(backend, for: test) {
          try await withCassette(backend, for: test) {
            try await configure(backend, isOutermost: false, for: test)
            try await body()
          }
        }
      }
      let scope = BackendScope(
        unmatched: unmatched ?? .fail, requireAllStubsUsed: requireAllStubsUsed ?? false,
        clock: clock(for: test), location: CodeLocation(test.sourceLocation))
      #if compiler(>=6.2)
        // Every issue the test records, Doppel's own among them, passes through `watcher`: a
        // failure (or an error the test throws) gets the backend's traffic attached.
        let failed = Locked(false)
        let watcher = IssueHandlingTrait.compactMapIssues { issue in
          if issue.isFailure { failed.withLock { $0 = true } }
          return issue
        }
        let policy = AttachmentPolicy.effective(
          attachmentPolicy(for: test), environment: ProcessInfo.processInfo.environment)
        do {
          try await watcher.provideScope(for: test, testCase: testCase) {
            try await run(scope, for: test, body, report: report)
          }
        } catch {
          if policy.attaches(failed: true) {
            recordAttachments(for: scope.backend, test: test)
          }
          throw error
        }
        if policy.attaches(failed: failed.withLock { $0 }) {
          recordAttachments(for: scope.backend, test: test)
        }
      #else
        try await run(scope, for: test, body, report: report)
      #endif
    }

    /// Runs `body` in `scope`, as the outermost trait, then reports the scope's issues.
    private func run(
      _ scope: BackendScope, for test: Test, _ body: @Sendable () async throws -> Void,
      report: @Sendable (DoppelIssue) -> Void
    ) async throws {
      var thrown: (any Error)?
      do {
        try await Self.$enclosing.withValue(scope.backend) {
          try await Backend.$scoped.withValue(scope.backend) {
            try await withPact(scope.backend, for: test) {
              try await withCassette(scope.backend, for: test) {
                // What traits applied outside this one asked for (`.doppel(openAPI:)` on a suite).
                for setUp in Backend.pendingSetUp { setUp(scope.backend) }
                try await configure(scope.backend, isOutermost: true, for: test)
                try await body()
              }
            }
          }
        }
      } catch {
        thrown = error
      }
      // An unmatched request's error that the test rethrows is already among the scope's issues,
      // reported at the closest stub: it is not reported a second time as a caught error.
      let (issues, thrownErrorIssue) = scope.finish(thrown: thrown)
      for issue in issues { report(issue) }
      if let thrown, thrownErrorIssue == nil { throw thrown }
    }

    /// The attachment policy the innermost `.doppel` trait that names one chose, as for every
    /// other option.
    private func attachmentPolicy(for test: Test) -> AttachmentPolicy? {
      let traits = test.traits.compactMap { $0 as? DoppelTrait }
      for trait in traits.reversed() {
        if let attach = trait.attach { return attach }
      }
      return attach
    }

    /// The clock for a new test case's backend: the innermost `.doppel` trait that names one wins
    /// (a test's own over its suite's), as for every other option. Each test case gets a clock of
    /// its own, so parallel test cases never share a `ManualClock`.
    private func clock(for test: Test) -> any Clock<Duration> {
      let traits = test.traits.compactMap { $0 as? DoppelTrait }
      for trait in traits.reversed() {
        if let clock = trait.makeClock() { return clock }
      }
      return makeClock() ?? ContinuousClock()
    }

    private func configure(_ backend: Backend, isOutermost: Bool, for test: Test) async throws {
      if !isOutermost {
        if let unmatched { backend.unmatchedPolicy = unmatched }
        if let requireAllStubsUsed { backend.requiresAllStubsUsed = requireAllStubsUsed }
      }
      try await configure(backend)
      // A suite's traits configure the backend before the test's own: what they declared so far
      // are the suite's defaults, which `requireAllStubsUsed` leaves out unless asked.
      if isOnSuite.withLock({ $0 }), !countsSuiteStubs(for: test) {
        backend.exemptStubsDeclaredSoFarFromRequireAll()
      }
    }

    /// Whether the innermost `.doppel` trait that says so asked to count a suite's stubs.
    private func countsSuiteStubs(for test: Test) -> Bool {
      let traits = test.traits.compactMap { $0 as? DoppelTrait }
      for trait in traits.reversed() {
        if let counts = trait.countsSuiteStubs { return counts }
      }
      return countsSuiteStubs ?? false
    }

    /// This trait, with `requireAllStubsUsed` counting the stubs its suites' `.doppel` traits
    /// declared as well as the test's own.
    ///
    /// By default a suite's stubs are shared defaults, which not every test uses: with
    /// `requireAllStubsUsed: true` each test must use only the stubs it declared itself (in its
    /// own trait or its body). On a test or a suite:
    ///
    /// ```swift
    /// @Test(.doppel(requireAllStubsUsed: true).countingSuiteStubs())
    /// func loadsEverything() async throws { … }
    /// ```
    public func countingSuiteStubs() -> DoppelTrait {
      var trait = self
      trait.countsSuiteStubs = true
      return trait
    }
  }

  extension Trait where Self == DoppelTrait {
    /// Gives each test its own empty `Backend`, as ``Doppel/Backend/current``, verified when
    /// the test ends.
    ///
    /// ```swift
    /// @Test(.doppel) func loads() async throws {
    ///   Backend.current.stub(.get("/breeds.json"), .json(Breed.all))
    ///   …
    /// }
    /// ```
    public static var doppel: Self { doppel() }

    /// Gives each test its own `Backend`, as ``Doppel/Backend/current``, configured by
    /// `configure` and verified when the test ends.
    ///
    /// ```swift
    /// @Suite(.doppel { $0.stub(.get("/breeds.json"), .json(Breed.all)) })
    /// struct BreedListTests {
    ///   @Test(.doppel(requireAllStubsUsed: true) { $0.stub(.get("/breeds.json"), .json([Breed]())) })
    ///   func showsEmptyState() async throws { … }
    /// }
    /// ```
    ///
    /// On a suite, `configure` runs for each test in it, before the test's own `.doppel` trait.
    ///
    /// - Parameters:
    ///   - requireAllStubsUsed: whether every stub the test declared (in its own trait or its
    ///     body; not its suites' defaults, unless ``DoppelTrait/countingSuiteStubs()``) must answer
    ///     at least once by the end of the test; those that did not are listed in one failure, each
    ///     with where it was declared (see `Backend.requiresAllStubsUsed`). `nil` keeps an
    ///     enclosing trait's choice, or `false`.
    ///   - unmatched: what happens to requests no stub matches. `nil` keeps an enclosing trait's
    ///     choice, or `UnmatchedPolicy.fail`.
    ///   - clock: the clock the backend's delays, pacing and timeouts run on, made anew for each
    ///     test case (it is an autoclosure): `.doppel(clock: ManualClock())` gives every test case
    ///     a `ManualClock` of its own, which the test reads back as `Backend.current.clock`.
    ///     `nil` keeps an enclosing trait's choice, or the continuous clock.
    ///   - attach: when the test gets its backend's traffic attached (the journal as HAR, and each
    ///     unmatched request's near-miss report): ``AttachmentPolicy/onFailure`` (the default),
    ///     ``AttachmentPolicy/always`` or ``AttachmentPolicy/never``. `nil` keeps an enclosing
    ///     trait's choice. The environment variable `DOPPEL_ATTACH` wins over it.
    ///   - configure: declares the stubs; it may also set the backend's other properties. An
    ///     error it throws fails the test.
    public static func doppel(
      requireAllStubsUsed: Bool? = nil, unmatched: UnmatchedPolicy? = nil,
      clock: @autoclosure @escaping @Sendable () -> (any Clock<Duration>)? = nil,
      attach: AttachmentPolicy? = nil,
      _ configure: @escaping @Sendable (Backend) async throws -> Void = { _ in }
    ) -> Self {
      var trait = DoppelTrait(requireAllStubsUsed: requireAllStubsUsed, unmatched: unmatched, configure: configure)
      trait.makeClock = clock
      trait.attach = attach
      return trait
    }
  }
#endif
