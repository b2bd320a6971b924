// yt-gst — the RF64/BW64 ds64 chunk.

/// The RF64/BW64 `ds64` chunk: 64-bit sizes for the chunks whose 32-bit size says 0xFFFFFFFF.
struct DS64 {
    var riffSize: UInt64
    var dataSize: UInt64
    var sampleCount: UInt64
    /// The optional table of other chunks' sizes.
    var chunkSizes: [FourCC: UInt64] = [:]

    /// Decodes a ds64 body of at least 24 bytes; table entries cut off by the end of `bytes` are ignored.
    init(_ bytes: [UInt8], byteOrder: ByteOrder) {
        riffSize = byteOrder.uint64(bytes, at: 0)
        dataSize = byteOrder.uint64(bytes, at: 8)
        sampleCount = byteOrder.uint64(bytes, at: 16)
        guard bytes.count >= 28 else { return }
        let entries = min(Int(byteOrder.uint32(bytes, at: 24)), (bytes.count - 28) / 12)
        for entry in 0..<entries {
            let at = 28 + entry * 12
            chunkSizes[FourCC(bytes, at: at)] = byteOrder.uint64(bytes, at: at + 4)
        }
    }
}
