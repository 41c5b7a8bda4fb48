@_spi(DoppelInternals) import DoppelToolkit
import Foundation

// On Linux, `URLSession`, `URLRequest`, `HTTPURLResponse` and `URLProtocol` live in
// FoundationNetworking rather than Foundation. Exported here, once, so every file of Doppel and
// every file that imports Doppel sees them without a `#if` of its own.

#if canImport(FoundationNetworking)
  @_exported import FoundationNetworking
#endif
