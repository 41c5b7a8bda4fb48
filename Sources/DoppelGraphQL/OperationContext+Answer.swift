#if GraphQL
  import Doppel
  import Foundation
  import GraphQL

  extension OperationContext {
    /// What is wrong with `body` as the answer to this operation: a field the operation did not
    /// select, a selected field missing, `null` for a non-null type, a value of the wrong type or
    /// an enum value the schema does not have, a `__typename` that is not the object's type.
    func answerProblems(_ body: JSONValue) -> [(path: String, rule: String, place: String?)] {
      var walker = AnswerWalker(document: document, context: self)
      guard let data = walker.data(of: body), let root = rootType else { return walker.problems }
      walker.walkObject(root, data, selected: collectFields(operation.selectionSet, on: root), path: "$.data")
      return walker.problems
    }

    /// What a built-in scalar's value must be, when `value` is not one; custom scalars take anything.
    static func scalarProblem(_ scalar: String, _ value: JSONValue) -> String? {
      switch (scalar, value) {
      case ("Int", .number(let number)) where number.rounded() == number && abs(number) <= Double(Int32.max): nil
      case ("Int", _): "an Int (a whole number of 32 bits)"
      case ("Float", .number): nil
      case ("Float", _): "a Float"
      case ("String", .string): nil
      case ("String", _): "a String"
      case ("Boolean", .bool): nil
      case ("Boolean", _): "a Boolean"
      case ("ID", .string), ("ID", .number): nil
      case ("ID", _): "an ID (a string)"
      default: nil
      }
    }

    /// How a message names a JSON value: `the string "Ada"`, `the number 5`, `null`, `an object`.
    static func kind(_ value: JSONValue) -> String {
      switch value {
      case .null: "null"
      case .bool(let flag): flag ? "true" : "false"
      case .number: "the number \(value.description)"
      case .string(let text):
        "the string \(JSONValue.string(text.count > 40 ? text.prefix(37) + "…" : text).description)"
      case .array: "an array"
      case .object: "an object"
      }
    }
  }
#endif
