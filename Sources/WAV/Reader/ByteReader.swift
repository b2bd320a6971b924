// yt-gst — the random-access byte seam under WAV reading.

/// Random-access bytes: a file in production, memory or a fault injector in tests.
///
/// Both the header parser and the feeder read through this protocol, so short reads and I/O errors can be injected
/// without touching the file system (STYLE 7.5).
/// - Note: `Sendable` because the feeder reads on a GStreamer streaming thread.
public protocol ByteReader: Sendable {
    /// The current length in bytes.
    var size: Int64 { get }

    /// Reads up to `buffer.count` bytes starting at `offset`.
    ///
    /// Implementations retry EINTR and keep reading after a short read until the buffer is full or the bytes run
    /// out, so a result smaller than `buffer.count` always means the end was reached.
    /// - Returns: The number of bytes read; 0 at or past the end.
    /// - Throws: `WAVError` of kind `.io` when the underlying read fails.
    func read(at offset: Int64, into buffer: UnsafeMutableRawBufferPointer) throws(WAVError) -> Int

    /// Whether any offset can be read at any time. False for a pipe (`StreamReader`): reads go forward only, `size`
    /// is unknown, and the parser stops at the data chunk instead of walking the chunks after it.
    var isSeekable: Bool { get }
}

extension ByteReader {
    /// Files and memory are random access.
    public var isSeekable: Bool { true }

    /// Reads up to `count` bytes at `offset` into a new array, shorter only where the bytes run out.
    ///
    /// Keeps reading after a short read until a read returns 0, so a reader that does not loop itself (a test
    /// double, a pipe-like reader) cannot make a header look truncated. Callers bound `count` themselves: a size
    /// declared in a file must never reach here unclamped.
    public func bytes(at offset: Int64, count: Int) throws(WAVError) -> [UInt8] {
        guard count > 0, offset >= 0 else { return [] }
        var result = [UInt8](repeating: 0, count: count)
        var filled = 0
        while filled < count {
            // withUnsafeMutableBytes rethrows as `any Error`; carry the typed error out by hand.
            let outcome = result.withUnsafeMutableBytes { buffer in
                Result { () throws(WAVError) -> Int in
                    try read(
                        at: offset + Int64(filled), into: UnsafeMutableRawBufferPointer(rebasing: buffer[filled...]))
                }
            }
            let got = try outcome.get()
            guard got > 0 else { break }
            filled += min(got, count - filled)
        }
        result.removeLast(count - filled)
        return result
    }
}
