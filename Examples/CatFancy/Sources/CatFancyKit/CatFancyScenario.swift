/// The scenarios of the bundled manifest (`Fixtures/doppel.json`): each puts the app's own URL
/// (``BreedsURL/standard``) into one state of the breeds screen.
///
/// The raw value is the scenario's name in the manifest, on the command line
/// (`catfancy --scenario slow`) and in `DOPPEL_SCENARIO`.
public enum CatFancyScenario: String, CaseIterable, Sendable {
  /// The usual list of 14 breeds.
  case standard
  /// The server lists no breeds.
  case empty
  /// A body that is not valid JSON.
  case malformed
  /// 19 breeds: more rows than fit on a screen.
  case withMore
  /// The usual list, answered after ``slowDelay``: the screen shows its loading state first.
  case slow

  /// How long the `slow` scenario's answer takes, as the manifest says (`"delay": "1.5s"`).
  public static let slowDelay: Duration = .milliseconds(1_500)
}
