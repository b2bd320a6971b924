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
        case 0x0011: "IMA ADPCM"
        case 0x0031: "GSM 6.10"
        case 0x0050: "MPEG"
        case 0x0055: "MPEG Layer 3"
        case 0x00FF: "AAC"
        case 0x1610: "HE-AAC"
        case 0x2000: "AC-3"
        case 0x2001: "DTS"
        case 0xFFFE: "extensible"
        case 0xFFFF: "experimental"
        default: "unknown"
        }
    }
}
