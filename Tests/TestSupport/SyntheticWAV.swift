// yt-gst — WAV files made by tests: tones with known samples, in any simple PCM layout.
import Foundation

/// A RIFF/WAVE file built in memory: a 16-byte PCM/float fmt chunk and a data chunk, little-endian.
public struct SyntheticWAV {
    public var sampleRate: Int
    public var channels: Int
    public var bitsPerSample: Int
    public var formatTag: UInt16
    /// The data chunk's bytes (interleaved samples).
    public var samples: [UInt8]

    public init(sampleRate: Int, channels: Int, bitsPerSample: Int, formatTag: UInt16 = 1, samples: [UInt8]) {
        self.sampleRate = sampleRate
        self.channels = channels
        self.bitsPerSample = bitsPerSample
        self.formatTag = formatTag
        self.samples = samples
    }

    public var blockAlign: Int { channels * bitsPerSample / 8 }
    public var frames: Int { samples.count / blockAlign }

    /// A sine tone at `frequency` Hz, amplitude 0.5 of full scale, the same in every channel (integer PCM).
    public static func tone(
        frequency: Double = 1000, frames: Int, rate: Int = 44_100, channels: Int = 2, bits: Int = 16
    ) -> SyntheticWAV {
        var samples: [UInt8] = []
        samples.reserveCapacity(frames * channels * bits / 8)
        let bytes = bits / 8
        let fullScale = Double((1 << (bits - 1)) - 1)
        for frame in 0..<frames {
            let value = sin(2 * .pi * frequency * Double(frame) / Double(rate)) * 0.5
            let integer = Int64((value * fullScale).rounded())
            for _ in 0..<channels {
                if bits == 8 {
                    samples.append(UInt8(integer + 128))
                } else {
                    for byte in 0..<bytes { samples.append(UInt8(truncatingIfNeeded: integer >> (8 * byte))) }
                }
            }
        }
        return SyntheticWAV(sampleRate: rate, channels: channels, bitsPerSample: bits, formatTag: 1, samples: samples)
    }

    /// `frames` frames of white noise from a fixed seed: no stretch repeats, so a copy shifted by any number of
    /// frames (a whole second of a tone is the same tone) differs from the original.
    public static func noise(
        frames: Int, rate: Int = 44_100, channels: Int = 2, bits: Int = 16, seed: UInt64 = 1
    )
        -> SyntheticWAV
    {
        var state = seed
        let count = frames * channels * bits / 8
        var samples: [UInt8] = []
        samples.reserveCapacity(count + 8)
        while samples.count < count {
            // SplitMix64: eight bytes per step.
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            z ^= z >> 31
            for byte in 0..<8 { samples.append(UInt8(truncatingIfNeeded: z >> (8 * byte))) }
        }
        return SyntheticWAV(
            sampleRate: rate, channels: channels, bitsPerSample: bits, formatTag: 1,
            samples: Array(samples.prefix(count)))
    }

    /// The whole file: RIFF header, fmt chunk, data chunk (with a pad byte when the data size is odd).
    public var bytes: [UInt8] {
        var out: [UInt8] = []
        func u32(_ v: Int) { for i in 0..<4 { out.append(UInt8(truncatingIfNeeded: v >> (8 * i))) } }
        func u16(_ v: Int) { for i in 0..<2 { out.append(UInt8(truncatingIfNeeded: v >> (8 * i))) } }
        let pad = samples.count % 2
        out += Array("RIFF".utf8)
        u32(4 + 24 + 8 + samples.count + pad)
        out += Array("WAVEfmt ".utf8)
        u32(16)
        u16(Int(formatTag))
        u16(channels)
        u32(sampleRate)
        u32(sampleRate * blockAlign)
        u16(blockAlign)
        u16(bitsPerSample)
        out += Array("data".utf8)
        u32(samples.count)
        out += samples
        if pad == 1 { out.append(0) }
        return out
    }

    /// Writes the file and returns its path.
    @discardableResult
    public func write(to url: URL) throws -> String {
        try Data(bytes).write(to: url)
        return url.path
    }
}
