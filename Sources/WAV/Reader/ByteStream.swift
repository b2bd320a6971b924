// yt-gst — the forward-only byte seam under reading a WAV from a pipe.

/// Bytes that arrive in order and can be read once: a pipe, a FIFO or a device in production, memory in tests.
///
/// `StreamReader` turns one into a `ByteReader`, so the parser and the feeder read a pipe the way they read a file.
/// - Note: `Sendable` because the feeder reads on a GStreamer streaming thread (one thread at a time).
public protocol ByteStream: Sendable {
    /// Reads the next bytes into `buffer`, waiting until at least one has arrived.
    ///
    /// May return fewer bytes than asked for (whatever has arrived); `StreamReader` keeps reading.
    /// - Returns: The number of bytes read, at least 1; 0 only at the end of the stream (or once `cancel()` ran).
    /// - Throws: `WAVError` of kind `.io` when the underlying read fails.
    func read(into buffer: UnsafeMutableRawBufferPointer) throws(WAVError) -> Int

    /// Makes a read that waits, and every read after it, return 0 at once, so a pipeline can stop while the producer
    /// is silent. Callable from any thread.
    func cancel()

    /// Reads so far that found nothing there and had to wait for the producer. It keeps growing while a live producer
    /// (`arecord`) is what paces the stream; it stays put while the reader is the slower side (`cat FILE`).
    var waits: Int { get }
}

extension ByteStream {
    /// Memory never makes a reader wait.
    public var waits: Int { 0 }
}

/// A stream of bytes held in memory, handed out in pieces of at most `pieceSize`: a pipe's short reads, in tests and
/// in the fuzzer.
public final class MemoryStream: ByteStream, @unchecked Sendable {
    private let bytes: [UInt8]
    private let pieceSize: Int
    // One reader at a time (see `ByteStream`); the position is only touched by it.
    private var position = 0

    /// A stream of `bytes` that gives at most `pieceSize` bytes per read.
    public init(_ bytes: [UInt8], pieceSize: Int = .max) {
        precondition(pieceSize > 0, "pieces must hold at least one byte")
        self.bytes = bytes
        self.pieceSize = pieceSize
    }

    /// Bytes handed out so far: a test checks with it that nothing was read ahead of need.
    public var bytesRead: Int { position }

    /// Copies the next piece; 0 at the end.
    public func read(into buffer: UnsafeMutableRawBufferPointer) throws(WAVError) -> Int {
        let count = min(buffer.count, pieceSize, bytes.count - position)
        guard count > 0 else { return 0 }
        bytes.withUnsafeBytes { stored in
            buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: stored[position..<position + count]))
        }
        position += count
        return count
    }

    /// Ends the stream where it is.
    public func cancel() { position = bytes.count }
}
