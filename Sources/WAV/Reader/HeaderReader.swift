// yt-gst — bounded, windowed reads for walking a WAV's headers.

/// Serves the parser's small reads from one 4 KiB window, so a typical file opens with one or two preads.
///
/// Every read is bounded by the caller (at most `maxRead`), never by a size declared in the file.
struct HeaderReader {
    /// The largest single read: enough for any real fmt or ds64 chunk.
    static let maxRead = 64 * 1024
    private static let windowSize = 4096

    let reader: any ByteReader
    /// The file's size; for a stream (unknown size, `Int64.max`) the end once a read has come back short.
    private(set) var fileSize: Int64
    private var window: [UInt8] = []
    private var windowStart: Int64 = 0

    init(reader: any ByteReader, fileSize: Int64) {
        self.reader = reader
        self.fileSize = fileSize
    }

    /// Up to `count` bytes at `offset`; fewer only at the end of the file.
    mutating func bytes(at offset: Int64, count: Int) throws(WAVError) -> [UInt8] {
        precondition(count <= Self.maxRead, "header reads are bounded")
        guard offset >= 0, count > 0 else { return [] }
        let end = offset + Int64(count)
        if offset < windowStart || end > windowStart + Int64(window.count) {
            let wanted = Int(min(Int64(max(count, Self.windowSize)), max(fileSize - offset, Int64(count))))
            window = try reader.bytes(at: offset, count: wanted)
            windowStart = offset
            // A stream's end shows only as a short read: from here on, the parser's sizes know it, as a file's do.
            if window.count < wanted && !reader.isSeekable { fileSize = min(fileSize, offset + Int64(window.count)) }
        }
        let start = Int(offset - windowStart)
        return Array(window[start..<min(start + count, window.count)])
    }
}
