// yt-gst — one top-level chunk of a WAV file, as walked.

/// Where a top-level chunk stands and what size it declares, for `info` and for tests.
public struct WAVChunkInfo: Sendable, Equatable {
    /// The four-character id ("fmt ", "LIST", ...) when all four bytes are printable ASCII, else hex of the bytes in
    /// file order ("0x00ff12ab"), so a damaged file still prints on one line.
    public var id: String
    /// Offset of the chunk's 8-byte header.
    public var offset: Int64
    /// The size as declared (taken from ds64 where an RF64 chunk says 0xFFFFFFFF); it may run past the end of file.
    public var size: UInt64

    /// Describes the chunk `id` whose header starts at `offset` and which declares `size` bytes.
    public init(id: String, offset: Int64, size: UInt64) {
        self.id = id
        self.offset = offset
        self.size = size
    }
}
