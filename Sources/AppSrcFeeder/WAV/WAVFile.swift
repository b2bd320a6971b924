// yt-gst — a parsed WAV file: its format, where its audio is, and what was odd about it.

/// The header of a WAV file (RIFF, RIFX, RF64 or BW64), parsed once; the samples stay in the `ByteSource`.
///
/// Parsing is lenient where real players are (missing pad bytes, data sizes that run past the end, headers of
/// recordings that were never finished) and says so in `warnings`; it is strict where guessing would play noise.
/// Opening reads only headers, through a 4 KiB window: one or two preads for a typical file.
public struct WAVFile: Sendable {
    public let container: WAVContainer
    public let format: WAVFormat
    /// Offset of the first audio byte.
    public let dataOffset: Int64
    /// Audio bytes to play: clamped to the end of the file and, for PCM/float/A-law/mu-law, whole frames only.
    public let dataByteCount: Int64
    /// The `fact` chunk's sample count (from ds64 in RF64 when the chunk says 0xFFFFFFFF), if there is one.
    ///
    /// Only compressed formats need it: their frame count cannot be derived from the byte count.
    public let factFrames: Int64?
    /// Every top-level chunk walked, in file order (ds64, fmt, data, metadata, ...).
    public let chunks: [WAVChunkInfo]
    /// One line each: clamped sizes, unfinished headers, missing pad bytes, dropped partial frames, ...
    public let warnings: [String]
    /// The file's size when it was parsed.
    public let fileSize: Int64

    /// Sample frames in `dataByteCount`.
    ///
    /// For compressed formats other than A-law and mu-law this is `factFrames`, or 0 when the file has no fact
    /// chunk (unknown without decoding).
    public var frameCount: Int64 {
        if format.encoding == .compressed && !Self.hasFixedFrames(format) { return factFrames ?? 0 }
        return dataByteCount / Int64(format.blockAlign)
    }

    /// `frameCount` at the sample rate; 0 when the frame count is unknown.
    public var durationSeconds: Double { Double(frameCount) / Double(format.sampleRate) }

    /// Parses the headers of the WAV in `source`.
    ///
    /// Does not throw for compressed codecs; call `requirePlayableRaw()` before feeding raw samples.
    /// - Throws: `WAVError`: `.notWAV`, `.truncatedHeader`, `.missingFormat`, `.missingData`, `.invalidFormat`,
    ///   or `.io` from the source.
    public init(source: some ByteSource) throws(WAVError) {
        self = try WAVParser(source: source).parse()
    }

    /// Opens `path` and parses it; the returned source is the one to read the samples from.
    ///
    /// - Throws: `WAVError` of kind `.cannotOpen`, or any error of `init(source:)`.
    public static func open(path: String) throws(WAVError) -> (file: WAVFile, source: FileSource) {
        let source = try FileSource(path: path)
        return (try WAVFile(source: source), source)
    }

    /// Throws unless the samples are PCM or IEEE float, which the feeder can hand to GStreamer as they are.
    ///
    /// - Throws: `WAVError` of kind `.unsupportedCodec` with `formatTag` set, e.g.
    ///   "unsupported codec: format tag 0x0011 (IMA ADPCM)".
    public func requirePlayableRaw() throws(WAVError) {
        guard format.encoding == .compressed else { return }
        let tag = format.effectiveTag
        let what: String
        if format.formatTag != 0xFFFE {
            what = "format tag \(Hex.tag(tag)) (\(format.formatName))"
        } else if tag == 0xFFFE {
            what = "extensible, \(format.formatName)"
        } else {
            what = "extensible sub-format \(Hex.tag(tag)) (\(format.formatName))"
        }
        throw WAVError(.unsupportedCodec, "unsupported codec: \(what)", formatTag: tag)
    }

    /// A-law and mu-law store one byte per sample, so frames follow from bytes as for PCM.
    static func hasFixedFrames(_ format: WAVFormat) -> Bool {
        format.encoding != .compressed || format.effectiveTag == 0x0006 || format.effectiveTag == 0x0007
    }

    init(
        container: WAVContainer, format: WAVFormat, dataOffset: Int64, dataByteCount: Int64, factFrames: Int64?,
        chunks: [WAVChunkInfo], warnings: [String], fileSize: Int64
    ) {
        self.container = container
        self.format = format
        self.dataOffset = dataOffset
        self.dataByteCount = dataByteCount
        self.factFrames = factFrames
        self.chunks = chunks
        self.warnings = warnings
        self.fileSize = fileSize
    }
}
