// `import Doppel` is enough to write the URLSession code a test needs (`URLRequest`,
// `HTTPURLResponse`, `URLSession`): on Linux those live in FoundationNetworking, which
// Platform/FoundationNetworking.swift exports too.
@_exported import Foundation
