// yt-gst — widening packed 40- to 56-bit integer samples to 64-bit floats, which GStreamer can carry.

enum SampleWidening {
    /// Converts `count` packed signed integers of `width` bytes (5...7) from `stored` into little-endian doubles in
    /// `pushed`, scaled to -1...1 like every GStreamer float format. Exact: a double holds 53 bits.
    static func widen(
        _ stored: UnsafeRawBufferPointer, width: Int, bigEndian: Bool, into pushed: UnsafeMutableRawBufferPointer
    ) {
        let count = stored.count / width
        let scale = 1.0 / Double(sign: .plus, exponent: 8 * width - 1, significand: 1)
        for index in 0..<count {
            var value: UInt64 = 0
            for byte in 0..<width {
                let shift = bigEndian ? 8 * (width - 1 - byte) : 8 * byte
                value |= UInt64(stored[index * width + byte]) << UInt64(shift)
            }
            let signed = Int64(bitPattern: value << UInt64(64 - 8 * width)) >> Int64(64 - 8 * width)
            pushed.storeBytes(
                of: (Double(signed) * scale).bitPattern.littleEndian, toByteOffset: index * 8, as: UInt64.self)
        }
    }
}
