@_spi(DoppelInternals) import DoppelToolkit
import Foundation

// How a request finds its backend.
//
// On Linux a custom URLProtocol cannot see `httpAdditionalHeaders` nor `URLProtocol.property(forKey:)`,
// and a session delegate used as a token would take the user's delegate slot. What works on Linux and
// Apple platforms alike is a distinct URLProtocol class per backend, listed first in the session's
// `protocolClasses`. Swift makes one at run time for each backend as a unique instantiation of a
// generic class, whose type argument spells the backend's number in binary, one nested type per bit:
// backend 6 (binary 110) is `ScopedURLProtocol<Bit0<Bit1<Bit1<Origin>>>>`. The class reads its number
// back (see `ScopedProtocolClass.number(of:)`) and looks the backend up in `BackendRegistry`.

protocol ScopeNumber {
  static var number: UInt32 { get }
}

enum Origin: ScopeNumber {
  static var number: UInt32 { 0 }
}

enum Bit0<Rest: ScopeNumber>: ScopeNumber {
  static var number: UInt32 { Rest.number << 1 }
}

enum Bit1<Rest: ScopeNumber>: ScopeNumber {
  static var number: UInt32 { Rest.number << 1 | 1 }
}

final class ScopedURLProtocol<Number: ScopeNumber>: DoppelURLProtocol {
  override class var routeID: UInt32 { ScopedProtocolClass.number(of: self) ?? Number.number }
}

enum ScopedProtocolClass {
  /// The URLProtocol class that routes to backend `id`.
  static func make(for id: UInt32) -> DoppelURLProtocol.Type {
    if let made = made.withLock({ $0.classes[id] }) { return made }
    func scoped<Number: ScopeNumber>(_: Number.Type) -> DoppelURLProtocol.Type { ScopedURLProtocol<Number>.self }
    let made = scoped(number(for: id))
    self.made.withLock { state in
      state.classes[id] = made
      state.numbers[ObjectIdentifier(made)] = id
    }
    return made
  }

  /// Notes that `type`, another class made from a number's type (see `ProcessWideURLProtocol`),
  /// stands for `id`, so that ``number(of:)`` finds it.
  static func note(_ type: DoppelURLProtocol.Type, number id: UInt32) {
    made.withLock { $0.numbers[ObjectIdentifier(type)] = id }
  }

  /// The number `type` was made for, when ``make(for:)`` made it: what its `routeID` is, read on
  /// every request. Reading it back from the type argument instead asks the runtime for one
  /// conformance per bit, about a microsecond for a number in the thousands.
  static func number(of type: DoppelURLProtocol.Type) -> UInt32? {
    made.withLock { $0.numbers[ObjectIdentifier(type)] }
  }

  /// The classes made so far, by number, and back: spelling a number out looks up one generic type
  /// per bit, and route numbers are reused (see `BackendRegistry`), so each is spelled out once.
  /// The classes themselves are never freed anyway.
  private static let made = Locked(Made())

  private struct Made {
    var classes: [UInt32: DoppelURLProtocol.Type] = [:]
    var numbers: [ObjectIdentifier: UInt32] = [:]
  }

  /// The type that spells `id` in binary, one nested type per bit.
  static func number(for id: UInt32) -> any ScopeNumber.Type {
    func build<Partial: ScopeNumber>(_ partial: Partial.Type, bit: Int) -> any ScopeNumber.Type {
      if bit < 0 { return Partial.self }
      return (id >> UInt32(bit)) & 1 == 1
        ? build(Bit1<Partial>.self, bit: bit - 1)
        : build(Bit0<Partial>.self, bit: bit - 1)
    }
    let highest = id == 0 ? 0 : 31 - id.leadingZeroBitCount
    return build(Origin.self, bit: highest)
  }
}
