#if Server
  import Doppel
  import Foundation
  import NIOCore
  import NIOHTTP1
  import NIOPosix

  /// A file body being sent from disk: the open file, how much the head announced, and how much
  /// went out.
  struct UnsentFile {
    let reader: FileReader
    let length: Int
    var sent = 0
    /// A read is in flight on the thread pool: the next piece is asked for when it is written.
    var reading = false
  }

  extension StubHTTPHandler {
    /// Sends the file at `path` (`length` bytes, as the head said) from disk, a piece at a time
    /// as the client reads them, then ends the response. The file is never all in memory: at most
    /// one piece is read ahead of what the channel can take.
    func writeFileThenEnd(_ file: (path: String, length: Int), context: ChannelHandlerContext) {
      guard let reader = FileReader(path: file.path) else {
        // The file went away (or became something else) since the answer was made: the head is
        // sent, so the client learns it only from the connection closing early.
        cutShort(context)
        return
      }
      beats = []
      nextBeat = 0
      unsentFile = UnsentFile(reader: reader, length: file.length)
      remainingSteps = [.end]
      advance(context)
    }

    /// Asks for the next piece of the file while the channel is writable: `true` when the whole
    /// file is written, `false` when the rest waits for a read (which resumes `advance` when it
    /// finishes) or for the client to read (``StubHTTPHandler/channelWritabilityChanged(context:)``).
    func sendUnsentFile(_ context: ChannelHandlerContext) -> Bool {
      guard var file = unsentFile else { return true }
      guard file.sent < file.length else {
        unsentFile = nil
        return true
      }
      guard !file.reading else { return false }
      guard context.channel.isWritable else {
        awaitingWritability = true
        context.flush()
        return false
      }
      file.reading = true
      unsentFile = file
      let reader = file.reader
      let offset = file.sent
      let count = min(Self.bodyChunkSize, file.length - file.sent)
      let handler = NIOLoopBound(self, eventLoop: context.eventLoop)
      let boundContext = context.loopBound
      let expected = generation
      NIOThreadPool.singleton.runIfActive(eventLoop: context.eventLoop) {
        try reader.read(at: offset, count: count)
      }.whenComplete { result in
        handler.value.received(result, expected: expected, context: boundContext.value)
      }
      return false
    }

    /// Writes a piece read from the file and goes on; a file that got shorter (or could not be
    /// read) cuts the body short, as the head announced more.
    private func received(_ result: Result<Data, any Error>, expected: Int, context: ChannelHandlerContext) {
      guard isActive, generation == expected, case .answering = state, var file = unsentFile else { return }
      guard case .success(let piece) = result, !piece.isEmpty else {
        cutShort(context)
        return
      }
      file.reading = false
      file.sent += piece.count
      unsentFile = file
      context.write(wrapOutboundOut(.body(.byteBuffer(context.channel.allocator.buffer(bytes: piece)))), promise: nil)
      advance(context)
    }

    /// Ends a response whose body cannot be finished: the connection closes, so the client sees
    /// fewer bytes than the head announced.
    private func cutShort(_ context: ChannelHandlerContext) {
      unsentFile = nil
      context.flush()
      close(context)
    }
  }
#endif
