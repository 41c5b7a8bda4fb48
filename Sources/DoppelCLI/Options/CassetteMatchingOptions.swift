#if Server
  import ArgumentParser
  import Doppel

  /// How `doppel serve` matches requests against the `.har` files given as inputs: the options of
  /// `Cassette.Matching`, and the replay of recorded timings. A manifest's cassettes have their own
  /// `"matching"` and `"timings"` instead.
  struct CassetteMatchingOptions: ParsableArguments {
    @Flag(help: "Match requests to the .har inputs on the method and the path only.")
    var methodAndPath = false

    @Option(
      name: .customLong("ignore-query-item"),
      help: ArgumentHelp("A query item the .har inputs ignore; repeat for more.", valueName: "name"))
    var ignoredQueryItems: [String] = []

    @Flag(help: "Ignore the whole query when matching requests to the .har inputs.")
    var ignoreAllQueryItems = false

    @Option(
      name: .customLong("compare-header"),
      help: ArgumentHelp("A header field the .har inputs also compare; repeat for more.", valueName: "name"))
    var comparedHeaders: [String] = []

    @Option(
      name: .customLong("ignore-header"),
      help: ArgumentHelp(
        "Compare every recorded header field of the .har inputs except this one (and those the HTTP stack sets); repeat for more.",
        valueName: "name"))
    var ignoredHeaders: [String] = []

    @Flag(help: "Compare the body too when matching requests to the .har inputs (JSON as JSON).")
    var compareBody = false

    @Option(
      name: .customLong("ignore-json-field"),
      help: ArgumentHelp(
        "Compare JSON bodies without this field: a JSON Pointer such as /meta/sentAt, or a top-level name; repeat for more.",
        valueName: "pointer"))
    var ignoredJSONFields: [String] = []

    @Flag(help: "Answer from the .har inputs as slowly as the recording did (the entries' timings).")
    var replayTimings = false

    func validate() throws {
      let query = [
        methodAndPath ? "--method-and-path" : nil, ignoreAllQueryItems ? "--ignore-all-query-items" : nil,
        ignoredQueryItems.isEmpty ? nil : "--ignore-query-item",
      ].compactMap { $0 }
      if query.count > 1 {
        throw ValidationError(
          "\(query[0]) and \(query[1]) cannot be used together: each says which query items are compared (--method-and-path ignores them all). Keep one."
        )
      }
      if compareBody && !ignoredJSONFields.isEmpty {
        throw ValidationError(
          "--compare-body and --ignore-json-field cannot be used together: --ignore-json-field compares the body already. Keep one."
        )
      }
      for (option, names) in [
        ("--ignore-query-item", ignoredQueryItems), ("--compare-header", comparedHeaders),
        ("--ignore-header", ignoredHeaders), ("--ignore-json-field", ignoredJSONFields),
      ] where names.contains("") {
        throw ValidationError("\(option) needs a name; \"\" is empty.")
      }
    }

    /// The rule, built as the manifest's `"matching"` is: ignored headers before compared ones.
    var matching: Cassette.Matching {
      var matching = Cassette.Matching.methodAndURL
      if methodAndPath { matching = matching.methodAndPath }
      if ignoreAllQueryItems { matching = matching.ignoringAllQueryItems }
      if !ignoredQueryItems.isEmpty { matching = matching.ignoringQueryItems(ignoredQueryItems) }
      if !ignoredHeaders.isEmpty { matching = matching.ignoringHeaders(ignoredHeaders) }
      if !comparedHeaders.isEmpty { matching = matching.comparingHeaders(comparedHeaders) }
      if compareBody { matching = matching.comparingBody }
      if !ignoredJSONFields.isEmpty { matching = matching.ignoringJSONFields(ignoredJSONFields) }
      return matching
    }
  }
#endif
