#if GraphQL
  import Doppel
  import Foundation

  /// A JSON value whose objects keep their members in order, as a GraphQL answer lists fields in
  /// the order the operation selects them.
  indirect enum OrderedJSON: Equatable {
    case value(JSONValue)
    case list([OrderedJSON])
    case object([(key: String, value: OrderedJSON)])

    static let null = OrderedJSON.value(.null)

    static func == (lhs: OrderedJSON, rhs: OrderedJSON) -> Bool {
      switch (lhs, rhs) {
      case (.value(let left), .value(let right)): left == right
      case (.list(let left), .list(let right)): left == right
      case (.object(let left), .object(let right)):
        left.count == right.count && zip(left, right).allSatisfy { $0.key == $1.key && $0.value == $1.value }
      default: false
      }
    }

    /// The compact JSON text; objects inside plain values are written with sorted keys.
    var text: String {
      switch self {
      case .value(let value): value.description
      case .list(let items): "[" + items.map(\.text).joined(separator: ",") + "]"
      case .object(let members):
        "{" + members.map { JSONValue.string($0.key).description + ":" + $0.value.text }.joined(separator: ",") + "}"
      }
    }
  }
#endif
