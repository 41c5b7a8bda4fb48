// `import Doppel` is enough to write the URLSession code a test needs (`URLRequest`,
// `HTTPURLResponse`, `URLSession`): on Linux those live in FoundationNetworking, which a user
// would otherwise have to import by hand, behind `#if canImport`.
@_exported import Foundation

#if canImport(FoundationNetworking)
  @_exported import FoundationNetworking
#endif
