// yt-gst — an in-memory ByteReader.

/// Bytes held in memory: synthetic WAVs in tests, or anything already loaded.
public struct MemoryReader: ByteReader {
    /// The whole file, held in memory.
    public let bytes: [UInt8]

    /// Reads from `bytes`, e.g. a WAV a test built, without touching the file system.
    public init(_ bytes: [UInt8]) {
        self.bytes = bytes
    }

    /// The byte count; memory does not grow while it is read.
    public var size: Int64 { Int64(bytes.count) }

    /// Copies from `offset` into `buffer`; never fails, and reads short only at the end of `bytes`.
    public func read(at offset: Int64, into buffer: UnsafeMutableRawBufferPointer) throws(WAVError) -> Int {
        guard offset >= 0, offset < size, buffer.count > 0 else { return 0 }
        let start = Int(offset)
        let count = min(buffer.count, bytes.count - start)
        bytes.withUnsafeBytes { stored in
            buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: stored[start..<start + count]))
        }
        return count
    }
}
