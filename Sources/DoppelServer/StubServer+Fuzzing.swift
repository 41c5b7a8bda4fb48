#if Server
  import Doppel
  import NIOCore

  extension StubServer {
    /// Sets up `channel` as one connection of a stub server answering with `backend`: the
    /// pipeline every accepted connection gets, for feeding bytes through an `EmbeddedChannel`
    /// (the fuzz targets in `Fuzz/` do). Call it on the channel's event loop, before the channel
    /// is active. Not a stable API.
    @_spi(Fuzzing)
    public static func configureConnection(
      _ channel: any Channel, serving backend: Backend, configuration: Configuration = Configuration()
    ) throws {
      try configuration.validate()
      try ServerCore(backend: backend, configuration: configuration).configure(channel)
    }
  }
#endif
