// yt-gst — the sample formats a recording can be written in, and the WAV format each becomes.

/// A sample format `yt-gst record` writes: the `--format` values.
public enum SampleFormat: String, Sendable, CaseIterable {
    case s16, s24, s32, f32, u8, alaw, mulaw

    /// Bits of one sample in the file.
    public var bitsPerSample: Int {
        switch self {
        case .u8, .alaw, .mulaw: 8
        case .s16: 16
        case .s24: 24
        case .s32, .f32: 32
        }
    }

    /// The WAV format tag of the samples (the sub-format of an extensible file).
    var formatTag: UInt16 {
        switch self {
        case .s16, .s24, .s32, .u8: 0x0001
        case .f32: 0x0003
        case .alaw: 0x0006
        case .mulaw: 0x0007
        }
    }

    /// How the reader's `WAVFormat` describes these samples.
    var encoding: SampleEncoding {
        switch self {
        case .s16, .s24, .s32, .u8: .pcm
        case .f32: .float
        case .alaw, .mulaw: .compressed
        }
    }
}

extension WAVFormat {
    /// The format of a recording: plain PCM, float, A-law or mu-law up to two channels, WAVE_FORMAT_EXTENSIBLE
    /// with a channel mask beyond (Microsoft requires it there, and python's `wave` reads only the plain forms).
    ///
    /// - Parameter channelMask: the WAV speaker mask; nil: the usual layout for the channel count.
    public static func recording(
        _ sample: SampleFormat, sampleRate: Int, channels: Int, channelMask: UInt32? = nil
    ) -> WAVFormat {
        let blockAlign = channels * sample.bitsPerSample / 8
        let extensible = channels > 2
        var format = WAVFormat(
            formatTag: extensible ? 0xFFFE : sample.formatTag,
            subFormatTag: extensible ? sample.formatTag : nil,
            subFormatGUID: extensible
                ? Hex.digits(UInt64(sample.formatTag), count: 8) + FormatTag.knownGUIDTails[0]
                : nil,
            encoding: sample.encoding, channels: channels, sampleRate: sampleRate, bitsPerSample: sample.bitsPerSample,
            blockAlign: blockAlign,
            channelMask: extensible ? (channelMask ?? ChannelPositions.defaultWAVMask(channels: channels) ?? 0) : nil)
        format.averageBytesPerSecond = sampleRate * blockAlign
        return format
    }

    /// The WAV speaker mask for a GStreamer channel mask (from the caps), or nil when the positions have none.
    public static func wavChannelMask(fromGStreamer mask: UInt64) -> UInt32? { ChannelPositions.wavMask(fromGst: mask) }
}
