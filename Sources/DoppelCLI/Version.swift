#if Server
  /// The version of the `doppel` tool and of the package, stated once: `doppel --version` prints
  /// it, `Scripts/release` names its archives after it, and `VersionTests` checks that the
  /// README's install line and the CHANGELOG's latest release say the same.
  enum DoppelVersion {
    /// The package's version, as the CHANGELOG's latest release and the README's install line
    /// give it.
    static let version = "0.2.0"

    /// The commit the binary was built from. `Scripts/release` writes it here for the build of a
    /// release and puts the file back afterwards; a build from source has none.
    static let commit: String? = nil

    /// `doppel 0.2.0 (commit 1a2b3c4)`, or `doppel 0.2.0 (commit unknown: built from source)`:
    /// what `doppel --version` prints.
    static var description: String {
      "doppel \(version) (\(commit.map { "commit \($0)" } ?? "commit unknown: built from source"))"
    }
  }
#endif
