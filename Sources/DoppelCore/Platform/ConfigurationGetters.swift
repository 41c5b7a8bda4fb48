@_spi(DoppelInternals) import DoppelToolkit
import Foundation

#if canImport(ObjectiveC)
  import ObjectiveC
#endif

/// Apple platforms only: the class getters of `URLSessionConfiguration` (`.default`, `.ephemeral`,
/// `.background(withIdentifier:)`) swizzled so that, while a backend intercepts
/// ``ProcessWideCoverage/everySession``, each configuration they return lists
/// ``EverySessionURLProtocol`` first (seed 003's technique, and OHHTTPStubs'). What is decided for
/// each configuration is ``EverySession``, plain Swift that Linux tests; this is only the
/// Objective-C runtime glue.
///
/// Why the getters, and not `+[NSURLSession sessionWithConfiguration:…]`: code takes a
/// configuration from a getter, then changes it (headers, timeouts, its own `protocolClasses`)
/// before it makes a session. Swizzled getters put Doppel's class in at the start, so an SDK that
/// sets its own classes later replaces it knowingly, as it would replace any default; and a
/// session made from the configuration keeps its own copy, as URLSession always does. Swizzling
/// the session initializers would also catch configurations made with `URLSessionConfiguration()`
/// (which Apple documents as unsupported), but would rewrite every session of the process,
/// including those whose `protocolClasses` were set on purpose.
///
/// Installed once for the life of the process (a `static let`, whose initialisation Swift runs
/// exactly once, under its own lock) and never removed: whether a configuration is changed is
/// read from ``ProcessWide/state`` on each call, so stopping interception restores the getters'
/// behaviour exactly, and a configuration made meanwhile keeps a class that declines every request
/// once no backend intercepts every session.
enum ConfigurationGetters {
  /// Swizzles the getters the first time it is called; whether they are swizzled (false on Linux,
  /// which has no Objective-C runtime, and where a getter a runtime lacks could not be found).
  static func install() -> Bool { installed }

  private static let installed: Bool = {
    #if canImport(ObjectiveC)
      let type: AnyClass = URLSessionConfiguration.self
      let made = [
        replaceGetter(of: type, "defaultSessionConfiguration", origin: .default),
        replaceGetter(of: type, "ephemeralSessionConfiguration", origin: .ephemeral),
        replaceBackgroundGetter(of: type, "backgroundSessionConfigurationWithIdentifier:"),
      ]
      return made.allSatisfy { $0 }
    #else
      return false
    #endif
  }()

  #if canImport(ObjectiveC)
    /// Replaces the class method `name` (a getter taking no argument) with one that calls the
    /// original and hands its configuration to ``EverySession/adjust(_:madeAs:)``.
    private static func replaceGetter(of type: AnyClass, _ name: String, origin: EverySession.Origin) -> Bool {
      let selector = NSSelectorFromString(name)
      guard let method = class_getClassMethod(type, selector) else { return false }
      typealias Original = @convention(c) (AnyObject, Selector) -> URLSessionConfiguration
      let original = unsafeBitCast(method_getImplementation(method), to: Original.self)
      let replacement: @convention(block) (AnyObject) -> URLSessionConfiguration = { receiver in
        EverySession.adjust(original(receiver, selector), madeAs: origin)
      }
      _ = method_setImplementation(method, imp_implementationWithBlock(replacement))
      return true
    }

    /// The same for `+backgroundSessionConfigurationWithIdentifier:`, whose configuration is only
    /// reported (background sessions run no custom protocol).
    private static func replaceBackgroundGetter(of type: AnyClass, _ name: String) -> Bool {
      let selector = NSSelectorFromString(name)
      guard let method = class_getClassMethod(type, selector) else { return false }
      typealias Original = @convention(c) (AnyObject, Selector, NSString) -> URLSessionConfiguration
      let original = unsafeBitCast(method_getImplementation(method), to: Original.self)
      let replacement: @convention(block) (AnyObject, NSString) -> URLSessionConfiguration = { receiver, identifier in
        EverySession.adjust(
          original(receiver, selector, identifier), madeAs: .background(identifier: identifier as String))
      }
      _ = method_setImplementation(method, imp_implementationWithBlock(replacement))
      return true
    }
  #endif
}
