// yt-gst — reading header integers in a file's byte order.

extension ByteOrder {
    /// The unsigned integer of `width` bytes at `index` of `bytes`; the caller has checked the bounds.
    func integer(_ bytes: [UInt8], at index: Int, width: Int) -> UInt64 {
        // A plain loop: the chunk walk decodes a size for each of up to `WAVParser.maxChunks` chunks.
        var value: UInt64 = 0
        for position in 0..<width {
            value = value << 8 | UInt64(bytes[index + (self == .little ? width - 1 - position : position)])
        }
        return value
    }

    func uint16(_ bytes: [UInt8], at index: Int) -> UInt16 { UInt16(integer(bytes, at: index, width: 2)) }
    func uint32(_ bytes: [UInt8], at index: Int) -> UInt32 { UInt32(integer(bytes, at: index, width: 4)) }
    func uint64(_ bytes: [UInt8], at index: Int) -> UInt64 { integer(bytes, at: index, width: 8) }
}
