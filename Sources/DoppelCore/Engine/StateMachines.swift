@_spi(DoppelInternals) import DoppelToolkit
import Foundation

/// The current state of each of a backend's state machines: the main one (``Backend/state()``)
/// and those stubs name (``StubHandle/stateMachine(_:)``). A machine not yet moved is `initial`.
package struct StateMachines: Sendable, Equatable {
  /// The state every machine starts in.
  static let initial = "initial"

  /// The main machine's state.
  var main = StateMachines.initial
  /// The named machines that left `initial`, by name.
  var named: [String: String] = [:]

  /// The state of the machine `name` (`nil` for the main one).
  subscript(name: String?) -> String {
    get { name.map { named[$0] ?? Self.initial } ?? main }
    set {
      if let name { named[name] = newValue } else { main = newValue }
    }
  }
}

extension Backend {
  /// The state of the main state machine: the state that stateful stubs require and move (see
  /// ``StubHandle/requiresState(_:)`` and ``StubHandle/setsState(_:)``). It starts as `initial`.
  public func state() -> String {
    machine.withLock { $0.main }
  }

  /// Puts the main state machine in `state`, as if a stub with ``StubHandle/setsState(_:)`` had
  /// answered.
  public func setState(_ state: String) {
    machine.withLock { $0.main = state }
  }

  /// The state of the state machine called `name` (see ``StubHandle/stateMachine(_:)``):
  /// `initial` until a stub moves it or it is set.
  public func state(ofMachine name: String) -> String {
    machine.withLock { $0[name] }
  }

  /// Puts the state machine called `name` in `state`.
  public func setState(_ state: String, ofMachine name: String) {
    machine.withLock { $0[name] = state }
  }

  /// The named state machines: every one a stub names or whose state was set, with its state.
  /// The main machine is ``state()``.
  public var stateMachines: [String: String] {
    let names = Set(stubs.compactMap(\.stateMachine))
    return machine.withLock { machines in
      var all = machines.named
      for name in names where all[name] == nil { all[name] = StateMachines.initial }
      return all
    }
  }

  /// Puts every state machine, the main one included, back in `initial`.
  public func resetStates() {
    machine.withLock { $0 = StateMachines() }
  }
}
