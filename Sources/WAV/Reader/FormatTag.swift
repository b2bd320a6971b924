// yt-gst — WAVE format tags: their names and the sub-format GUID families.

/// Names of WAVE format tags, for messages and `info`.
public enum FormatTag {
    /// The SubFormat GUID tails (after the 32-bit first field) whose first field is a format tag: Microsoft's
    /// KSDATAFORMAT_SUBTYPE_* and the Ambisonic B-format (.amb) family, which libsndfile also reads.
    static let knownGUIDTails = ["-0000-0010-8000-00aa00389b71", "-0721-11d3-8644-c8c1ca000000"]

    /// Whether a SubFormat GUID (as in `WAVFormat.subFormatGUID`) is a format tag in a known GUID family.
    public static func isKnownSubFormat(_ guid: String) -> Bool {
        guid.hasPrefix("0000") && knownGUIDTails.contains { guid.hasSuffix($0) }
    }

    /// "0x0011": the form format tags take in messages and `info`.
    public static func hex(_ tag: UInt16) -> String { "0x" + Hex.digits(UInt64(tag), count: 4).uppercased() }

    /// The usual name of a format tag ("PCM", "IMA ADPCM", ...) for messages and `info`; "unknown" for tags not listed.
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
