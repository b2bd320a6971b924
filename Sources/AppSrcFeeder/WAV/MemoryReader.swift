// yt-gst — an in-memory ByteReader.

/// Bytes held in memory: synthetic WAVs in tests, or anything already loaded.
public struct MemoryReader: ByteReader {
    public let bytes: [UInt8]

    public init(_ bytes: [UInt8]) {
        self.bytes = bytes
    }

    public var size: Int64 { Int64(bytes.count) }

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
