// `import Doppel` is the one import a user writes: it re-exports the layers, each a module of its
// own whose imports the compiler checks (DoppelToolkit, then DoppelCore, DoppelRecording and
// DoppelManifest). Foundation comes too, so that the URLSession code a test needs (`URLRequest`,
// `HTTPURLResponse`, `URLSession`) compiles with this one import; on Linux those live in
// FoundationNetworking, which DoppelCore's Platform/FoundationNetworking.swift exports.
@_exported import DoppelCore
@_exported import DoppelManifest
@_exported import DoppelRecording
@_exported import DoppelToolkit
@_exported import Foundation
