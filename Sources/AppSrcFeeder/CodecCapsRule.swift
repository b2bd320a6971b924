// yt-gst — the table of GStreamer caps for the compressed WAV format tags.
import GstPlayer
import WAV

/// How GStreamer's RIFF code describes one compressed format tag as caps.
///
/// The caps are the media type with its fixed fields, then the fields computed from the header, then rate and
/// channels, then `block_align` (each where the rule has them): riff-media's order, so `info` prints them as
/// GStreamer would.
struct CodecCapsRule: Sendable {
    /// The format tags the rule applies to.
    var tags: [UInt16]
    /// The media type ("audio/x-adpcm").
    var mediaType: String
    /// Fields that do not depend on the header (`layout=microsoft`, `mpegversion=1`).
    var fixedFields: [(name: String, value: Structure.Value)] = []
    /// Fields computed from the header (bitrates, versions).
    var fields: @Sendable (WAVFormat) -> [(name: String, value: Structure.Value)] = { _ in [] }
    /// Whether rate and channels follow: not for DTS and Siren, whose headers cannot be trusted for them.
    var withRateAndChannels = true
    /// The `block_align` of the block codecs; nil for the others.
    var blockAlign: (@Sendable (WAVFormat) -> Int)? = nil
    /// Whether the tag maps only as the sub-format of an extensible file (AC-3 over S/PDIF).
    var onlyAsSubFormat = false

    /// The rule for each tag riff-media maps (gst-plugins-base riff-media.c, `gst_riff_create_audio_caps`).
    static let byTag: [UInt16: CodecCapsRule] = {
        var table: [UInt16: CodecCapsRule] = [:]
        for rule in rules {
            for tag in rule.tags { table[tag] = rule }
        }
        return table
    }()

    private static let storedBlockAlign: @Sendable (WAVFormat) -> Int = { $0.blockAlign }

    /// An integer field's value.
    private static func int(_ value: Int) -> Structure.Value { .int(Int64(value)) }

    /// The fixed `layout` of an ADPCM variant.
    private static func layout(_ name: String) -> [(name: String, value: Structure.Value)] {
        [("layout", .string(name))]
    }

    /// The fixed `mpegversion` (and `layer`, for MPEG-1) of MPEG audio.
    private static func mpeg(version: Int, layer: Int? = nil) -> [(name: String, value: Structure.Value)] {
        [("mpegversion", int(version))] + (layer.map { [("layer", int($0))] } ?? [])
    }

    private static let rules: [CodecCapsRule] = [
        .init(
            tags: [0x0002], mediaType: "audio/x-adpcm", fixedFields: layout("microsoft"), blockAlign: storedBlockAlign),
        .init(tags: [0x0006], mediaType: "audio/x-alaw"),
        .init(tags: [0x0007], mediaType: "audio/x-mulaw"),
        .init(
            tags: [0x000A], mediaType: "audio/x-wms",
            fields: {
                [
                    ("bitrate", int($0.averageBytesPerSecond * 8)), ("width", int($0.bitsPerSample)),
                    ("depth", int($0.bitsPerSample)),
                ]
            }, blockAlign: storedBlockAlign),
        .init(tags: [0x0011], mediaType: "audio/x-adpcm", fixedFields: layout("dvi"), blockAlign: storedBlockAlign),
        .init(tags: [0x0069], mediaType: "audio/x-adpcm", fixedFields: layout("dvi")),
        .init(tags: [0x0022], mediaType: "audio/x-truespeech"),
        .init(tags: [0x0031, 0x0032], mediaType: "audio/ms-gsm"),
        .init(
            tags: [0x0045], mediaType: "audio/x-adpcm", fixedFields: layout("g726"),
            fields: { g726(of: $0).bitrate > 0 ? [("bitrate", int(g726(of: $0).bitrate))] : [] },
            blockAlign: { g726(of: $0).blockAlign }),
        .init(tags: [0x0050], mediaType: "audio/mpeg", fixedFields: mpeg(version: 1, layer: 2)),
        .init(tags: [0x0055], mediaType: "audio/mpeg", fixedFields: mpeg(version: 1, layer: 3)),
        .init(tags: [0x0057], mediaType: "audio/AMR"),
        .init(tags: [0x0058], mediaType: "audio/AMR-WB"),
        .init(tags: [0x0061], mediaType: "audio/x-adpcm", fixedFields: layout("dk4")),
        .init(tags: [0x0062], mediaType: "audio/x-adpcm", fixedFields: layout("dk3")),
        .init(
            tags: Array(0x0070...0x0079) + [0x0081], mediaType: "audio/x-voxware",
            fields: { [("voxwaretype", int(Int($0.effectiveTag)))] }),
        .init(tags: [0x0092], mediaType: "audio/x-ac3", onlyAsSubFormat: true),
        .init(tags: [0x2000], mediaType: "audio/x-ac3"),
        .init(tags: [0x00FF, 0x4143, 0x706D], mediaType: "audio/mpeg", fixedFields: mpeg(version: 4)),
        .init(
            tags: Array(0x0160...0x0163), mediaType: "audio/x-wma",
            fields: {
                [
                    ("wmaversion", int(Int($0.effectiveTag) - 0x0160 + 1)),
                    ("bitrate", int($0.averageBytesPerSecond * 8)), ("depth", int($0.bitsPerSample)),
                ]
            }, blockAlign: storedBlockAlign),
        .init(tags: [0x0270], mediaType: "audio/x-vnd.sony.atrac3"),
        .init(tags: [0x028E], mediaType: "audio/x-siren", withRateAndChannels: false),
        .init(tags: [0x028F], mediaType: "audio/G722"),
        .init(tags: [0x2001], mediaType: "audio/x-dts", withRateAndChannels: false),
        .init(tags: [0x674F, 0x6750, 0x6751, 0x676F, 0x6770, 0x6771], mediaType: "audio/x-vorbis"),
    ]

    /// G.726's bitrate and block align as riff-media derives them: from the byte rate when it is one of G.726's four
    /// rates (16 to 40 kbit/s), else the bitrate from a block align of 2 to 5 bytes; bitrate 0 when neither.
    private static func g726(of format: WAVFormat) -> (bitrate: Int, blockAlign: Int) {
        let byteRate = format.averageBytesPerSecond
        if [2000, 3000, 4000, 5000].contains(byteRate) { return (byteRate * 8, byteRate / 1000) }
        return ((2...5).contains(format.blockAlign) ? format.blockAlign * 8000 : 0, format.blockAlign)
    }
}
