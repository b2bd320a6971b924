// yt-gst — WAV format description (pure Swift, no GStreamer).

/// How the samples of a WAV's data chunk are encoded, after resolving WAVE_FORMAT_EXTENSIBLE.
public enum SampleEncoding: Sendable, Equatable {
    /// Integer PCM. 8-bit WAV samples are unsigned, wider ones signed.
    case pcm
    /// IEEE float, 32 or 64 bits.
    case float
    /// Anything that needs a decoder (A-law, mu-law, ADPCM, GSM, MP3, an unknown tag or sub-format GUID).
    ///
    /// The header still parses so `info` can describe the file; `WAVFile.requirePlayableRaw()` refuses it.
    case compressed
}

/// Byte order of multi-byte samples: RIFF/RF64 are little-endian, RIFX big-endian.
public enum ByteOrder: Sendable, Equatable {
    case little, big
}

/// The container that holds the chunks.
public enum WAVContainer: String, Sendable, Equatable {
    case riff = "RIFF"
    case rifx = "RIFX"
    case rf64 = "RF64"
    case bw64 = "BW64"
    /// Sony Wave64: GUID chunk ids, 64-bit sizes that include the 24-byte chunk header, 8-byte alignment.
    case wave64 = "Wave64"
}

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
    public var encoding: SampleEncoding
    public var byteOrder: ByteOrder
    public var channels: Int
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

/// Names of WAVE format tags, for messages and `info`.
public enum FormatTag {
    /// The SubFormat GUID tails (after the 32-bit first field) whose first field is a format tag: Microsoft's
    /// KSDATAFORMAT_SUBTYPE_* and the Ambisonic B-format (.amb) family, which libsndfile also reads.
    static let knownGUIDTails = ["-0000-0010-8000-00aa00389b71", "-0721-11d3-8644-c8c1ca000000"]

    /// Whether a SubFormat GUID (as in `WAVFormat.subFormatGUID`) is a format tag in a known GUID family.
    public static func isKnownSubFormat(_ guid: String) -> Bool {
        guid.hasPrefix("0000") && knownGUIDTails.contains { guid.hasSuffix($0) }
    }

    public static func name(of tag: UInt16) -> String {
        switch tag {
        case 0x0001: "PCM"
        case 0x0002: "MS ADPCM"
        case 0x0003: "IEEE float"
        case 0x0006: "A-law"
        case 0x0007: "mu-law"
        case 0x0004: "VSELP"
        case 0x0005: "IBM CVSD"
        case 0x000A: "WMA Speech"
        case 0x0010: "OKI ADPCM"
        case 0x0011: "IMA ADPCM"
        case 0x0014: "G.723 ADPCM"
        case 0x0022: "DSP Group TrueSpeech"
        case 0x0031: "GSM 6.10"
        case 0x0032: "MSN Audio (GSM 6.10)"
        case 0x0040: "G.721 ADPCM"
        case 0x0045: "G.726 ADPCM"
        case 0x0050: "MPEG"
        case 0x0055: "MPEG Layer 3"
        case 0x0057: "AMR-NB"
        case 0x0058: "AMR-WB"
        case 0x0061: "IMA DK4 ADPCM"
        case 0x0062: "IMA DK3 ADPCM"
        case 0x0064: "G.726 ADPCM (APICOM)"
        case 0x0065: "G.722 ADPCM (APICOM)"
        case 0x0069: "IMA ADPCM (Voxware byte aligned)"
        case 0x0070...0x0079, 0x0081: "Voxware"
        case 0x0092: "AC-3 SPDIF"
        case 0x00FF: "AAC"
        case 0x0160: "WMA 1"
        case 0x0161: "WMA 2"
        case 0x0162: "WMA Pro"
        case 0x0163: "WMA Lossless"
        case 0x0270: "Sony ATRAC3"
        case 0x028E: "Siren"
        case 0x028F: "G.722.1"
        case 0x1610: "HE-AAC"
        case 0x2000: "AC-3"
        case 0x2001: "DTS"
        case 0x4143, 0x706D: "AAC"
        case 0x674F, 0x6750, 0x6751, 0x676F, 0x6770, 0x6771: "Vorbis"
        case 0xFFFE: "extensible"
        case 0xFFFF: "experimental"
        default: "unknown"
        }
    }
}
