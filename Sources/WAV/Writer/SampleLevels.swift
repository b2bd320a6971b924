// yt-gst — peak and RMS per channel of recorded samples, for the meter and for voice activation.
import Glibc

/// Peak, mean square and clipping per channel over the samples measured since the last `reset()`.
public struct SampleLevels: Sendable {
    /// One channel's reading in dBFS (-inf for digital silence) and whether it reached full scale.
    public struct Reading: Sendable, Equatable {
        public var peak: Double
        public var rms: Double
        public var clipped: Bool
    }

    public let format: SampleFormat
    public let channels: Int
    private var peaks: [Float]
    private var sums: [Double]
    private var clips: [Bool]
    private var count = 0

    public init(format: SampleFormat, channels: Int) {
        self.format = format
        self.channels = channels
        peaks = Array(repeating: 0, count: channels)
        sums = Array(repeating: 0, count: channels)
        clips = Array(repeating: false, count: channels)
    }

    /// Adds whole frames of `bytes` to the readings; returns the highest absolute sample in them (0...1).
    @discardableResult
    public mutating func measure(_ bytes: [UInt8]) -> Float {
        let width = format.bitsPerSample / 8
        let frames = bytes.count / (width * channels)
        var loudest: Float = 0
        bytes.withUnsafeBytes { raw in
            for frame in 0..<frames {
                for channel in 0..<channels {
                    let value = abs(Self.sample(raw, at: (frame * channels + channel) * width, format: format))
                    if value > peaks[channel] { peaks[channel] = value }
                    if value >= 0.9999 { clips[channel] = true }
                    sums[channel] += Double(value * value)
                    loudest = max(loudest, value)
                }
            }
        }
        count += frames
        return loudest
    }

    /// The readings since the last reset, one per channel.
    public var readings: [Reading] {
        (0..<channels).map { channel in
            let meanSquare = count > 0 ? sums[channel] / Double(count) : 0
            return Reading(
                peak: Self.decibels(Double(peaks[channel])), rms: 10 * log10(meanSquare), clipped: clips[channel])
        }
    }

    /// Starts new readings.
    public mutating func reset() {
        peaks = Array(repeating: 0, count: channels)
        sums = Array(repeating: 0, count: channels)
        clips = Array(repeating: false, count: channels)
        count = 0
    }

    /// dBFS of a linear amplitude (1 = full scale).
    public static func decibels(_ amplitude: Double) -> Double { 20 * log10(amplitude) }

    /// The linear amplitude of a dBFS level.
    public static func amplitude(decibels: Double) -> Float { Float(pow(10, decibels / 20)) }

    /// One sample as a fraction of full scale (-1...1).
    static func sample(_ raw: UnsafeRawBufferPointer, at offset: Int, format: SampleFormat) -> Float {
        switch format {
        case .s16:
            return Float(Int16(bitPattern: UInt16(raw[offset]) | UInt16(raw[offset + 1]) << 8)) / 32_768
        case .s24:
            let value = Int32(
                bitPattern: UInt32(raw[offset]) << 8 | UInt32(raw[offset + 1]) << 16
                    | UInt32(raw[offset + 2]) << 24)
            return Float(value) / 2_147_483_648
        case .s32:
            return Float(Int32(bitPattern: raw.loadUnaligned(fromByteOffset: offset, as: UInt32.self).littleEndian))
                / 2_147_483_648
        case .f32:
            return Float(bitPattern: raw.loadUnaligned(fromByteOffset: offset, as: UInt32.self).littleEndian)
        case .u8:
            return (Float(raw[offset]) - 128) / 128
        case .alaw:
            return Float(G711.alaw(raw[offset])) / 32_768
        case .mulaw:
            return Float(G711.mulaw(raw[offset])) / 32_768
        }
    }
}

/// G.711 expansion (ITU-T G.711), as sox and GStreamer's alawdec/mulawdec compute it.
enum G711 {
    static func alaw(_ byte: UInt8) -> Int16 {
        let value = Int(byte ^ 0x55)
        let exponent = (value >> 4) & 0x07
        var magnitude = (value & 0x0F) << 4 + 8
        if exponent > 0 { magnitude = (magnitude + 0x100) << (exponent - 1) }
        return Int16(value & 0x80 != 0 ? magnitude : -magnitude)
    }

    static func mulaw(_ byte: UInt8) -> Int16 {
        let value = Int(~byte)
        let exponent = (value >> 4) & 0x07
        let magnitude = (((value & 0x0F) << 3) + 0x84) << exponent - 0x84
        return Int16(value & 0x80 != 0 ? -magnitude : magnitude)
    }
}
