@_exported import Doppel
