// yt-gst — WAV format description (pure Swift, no GStreamer).

/// The audio format from a WAV's `fmt ` chunk.
public struct WAVFormat: Sendable, Equatable {
    /// wFormatTag as stored (0xFFFE for extensible).
    public var formatTag: UInt16
    /// For WAVE_FORMAT_EXTENSIBLE: the first two bytes of the SubFormat GUID; otherwise nil.
    ///
    /// Precisely, the low 16 bits of the GUID's first field, a 32-bit integer in the file's byte order: in RIFX
    /// those are its third and fourth bytes.
    public var subFormatTag: UInt16?
    /// For WAVE_FORMAT_EXTENSIBLE: the whole SubFormat GUID as text ("00000001-0000-0010-8000-00aa00389b71").
    ///
    /// Only the standard KSDATAFORMAT family and the Ambisonic B-format family make `subFormatTag` meaningful; any
    /// other GUID is `.compressed` whatever its first bytes say.
    public var subFormatGUID: String?
    /// What the samples are once the extensible sub-format is resolved: PCM, float, or data for a decoder.
    public var encoding: SampleEncoding
    /// The byte order of the samples and header numbers: big-endian only in RIFX files.
    public var byteOrder: ByteOrder
    /// Interleaved channels per frame (nChannels).
    public var channels: Int
    /// Frames per second (nSamplesPerSec).
    public var sampleRate: Int
    /// Bits of each sample's container: nBlockAlign / nChannels * 8 for PCM and float, wBitsPerSample otherwise.
    ///
    /// Block align wins over wBitsPerSample because it is what lays out the bytes: a "12-bit" file stores 16-bit
    /// samples, and a few writers put 24-bit samples in 4-byte slots while still saying 24.
    public var bitsPerSample: Int
    /// Meaningful bits in each container (wValidBitsPerSample for extensible, wBitsPerSample otherwise).
    public var validBits: Int
    /// Bytes per frame (nBlockAlign as stored).
    public var blockAlign: Int
    /// dwChannelMask for extensible files; nil when the file gives none (or 0).
    public var channelMask: UInt32?
    /// nAvgBytesPerSec as stored: the only clock a byte-stream codec (MP3, AAC, ...) has in a WAV.
    public var averageBytesPerSecond: Int = 0
    /// The codec-specific bytes after cbSize (after the 22-byte extension for extensible files), at most 64 KiB.
    ///
    /// IMA ADPCM and GSM keep wSamplesPerBlock here, MS ADPCM its coefficients, MP3 its MPEGLAYER3WAVEFORMAT fields;
    /// they travel to the decoder as `codec_data`, as GStreamer's wavparse sends them.
    public var extraData: [UInt8] = []

    /// A format from its fields, as the fmt chunk parser and tests build one; `validBits` nil = all of `bitsPerSample`.
    public init(
        formatTag: UInt16, subFormatTag: UInt16? = nil, subFormatGUID: String? = nil, encoding: SampleEncoding,
        byteOrder: ByteOrder = .little, channels: Int, sampleRate: Int, bitsPerSample: Int, validBits: Int? = nil,
        blockAlign: Int, channelMask: UInt32? = nil
    ) {
        self.formatTag = formatTag
        self.subFormatTag = subFormatTag
        self.subFormatGUID = subFormatGUID
        self.encoding = encoding
        self.byteOrder = byteOrder
        self.channels = channels
        self.sampleRate = sampleRate
        self.bitsPerSample = bitsPerSample
        self.validBits = validBits ?? bitsPerSample
        self.blockAlign = blockAlign
        self.channelMask = channelMask
    }

    /// Bytes of one sample of one channel in the data chunk.
    public var bytesPerSample: Int { blockAlign / max(channels, 1) }

    /// The tag that says what the samples are: the sub-format for extensible files with a known GUID family, else
    /// wFormatTag (0xFFFE for an extensible file with an unknown GUID).
    public var effectiveTag: UInt16 {
        guard let subFormatTag else { return formatTag }
        if let guid = subFormatGUID, !FormatTag.isKnownSubFormat(guid) { return formatTag }
        return subFormatTag
    }

    /// A human name for the effective tag ("PCM", "IEEE float", "A-law", ...).
    public var formatName: String {
        if let guid = subFormatGUID, !FormatTag.isKnownSubFormat(guid) { return "unknown sub-format {\(guid)}" }
        return FormatTag.name(of: effectiveTag)
    }
}
