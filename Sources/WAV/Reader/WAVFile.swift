// yt-gst — a parsed WAV file: its format, where its audio is, and what was odd about it.

/// The header of a WAV file (RIFF, RIFX, RF64 or BW64), parsed once; the samples are read later through a `ByteReader`.
///
/// Parsing is lenient where real players are (missing pad bytes, data sizes that run past the end, headers of
/// recordings that were never finished) and says so in `warnings`; it is strict where guessing would play noise.
/// Opening reads only headers, through a 4 KiB window: one or two preads for a typical file.
public struct WAVFile: Sendable {
    /// The container (RIFF, RIFX, RF64, BW64 or Wave64), which sets the byte order and how sizes are stored.
    public let container: WAVContainer
    /// The audio format from the fmt chunk: what the samples are, and so how the feeder pushes them.
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
    /// The file's size when it was parsed (`Int64.max` for a stream: unknown).
    public let fileSize: Int64
    /// Read from a stream (a pipe, FIFO or device): forward only and once, so it cannot be seeked or replayed, and
    /// the chunks after the data chunk were not read.
    public let isStream: Bool
    /// Whether `dataByteCount` (and so `frameCount` and `durationSeconds`) is the audio's length. False for a stream
    /// whose header gives no real data size (a streaming header): the audio runs to the end of the stream, and
    /// `dataByteCount` is only a bound far beyond it.
    public let lengthIsKnown: Bool
    /// LIST/INFO tags, bext, cue points with their labels, smpl loops and inst, as far as the file has them.
    public let metadata: WAVMetadata

    /// Sample frames in `dataByteCount`.
    ///
    /// PCM, float, A-law and mu-law: bytes / block align. Block codecs whose block size fixes the samples per block
    /// (IMA and MS ADPCM, GSM): the `fact` count (the exact length) when the blocks can hold it, else blocks ×
    /// samples per block (what a decoder puts out).
    /// Other codecs: the `fact` count, else an estimate from the average byte rate (0 when there is none).
    public var frameCount: Int64 {
        switch format.packetization {
        case .frames:
            return dataByteCount / Int64(format.blockAlign)
        case .blocks(let framesPerBlock?):
            // A stream of unknown length has a data size far beyond its audio: the product saturates.
            let (product, overflow) = (dataByteCount / Int64(format.blockAlign))
                .multipliedReportingOverflow(by: Int64(framesPerBlock))
            let capacity = overflow ? Int64.max : product
            if let factFrames, factFrames > 0, factFrames <= capacity { return factFrames }
            return capacity
        case .blocks(nil), .stream:
            if let factFrames, factFrames > 0 { return factFrames }
            return estimatedFrames
        }
    }

    /// Frames estimated from the byte count and nAvgBytesPerSec (exact for constant bit rates); 0 without a rate.
    var estimatedFrames: Int64 {
        guard format.averageBytesPerSecond > 0 else { return 0 }
        let (product, overflow) = dataByteCount.multipliedReportingOverflow(by: Int64(format.sampleRate))
        if !overflow { return product / Int64(format.averageBytesPerSecond) }
        return Int64(
            min(Double(dataByteCount) / Double(format.averageBytesPerSecond) * Double(format.sampleRate), 0x1p62))
    }

    /// `frameCount` at the sample rate; 0 when the frame count is unknown.
    public var durationSeconds: Double { Double(frameCount) / Double(format.sampleRate) }

    /// Parses the headers of the WAV that `reader` reads.
    ///
    /// Does not throw for compressed codecs; call `requirePlayableRaw()` before feeding raw samples.
    /// - Throws: `WAVError`: `.notWAV`, `.truncatedHeader`, `.missingFormat`, `.missingData`, `.invalidFormat`,
    ///   or `.io` from the reader.
    public init(reader: some ByteReader) throws(WAVError) {
        self = try WAVParser(reader: reader).parse()
    }

    /// Opens `path` and parses it; the returned reader is the one to read the samples with.
    ///
    /// "-" is standard input, and it, a FIFO or a character device is read as a stream (`StreamReader`); anything
    /// else must be a regular file (`FileReader`), as is standard input redirected from one (`< song.wav`), which
    /// can then seek.
    /// - Throws: `WAVError` of kind `.cannotOpen`, or any error of `init(reader:)`.
    public static func open(path: String) throws(WAVError) -> (file: WAVFile, reader: any ByteReader) {
        let reader: any ByteReader
        if DescriptorStream.isStream(path: path) {
            reader = StreamReader(path == "-" ? try DescriptorStream.standardInput() : try DescriptorStream(path: path))
        } else {
            reader = try FileReader(path: path == "-" ? "/dev/stdin" : path)
        }
        return (try WAVFile(reader: reader), reader)
    }

    /// Throws unless the samples are PCM or IEEE float, which the feeder can hand to GStreamer as they are.
    ///
    /// - Throws: `WAVError` of kind `.unsupportedCodec` with `formatTag` set, e.g.
    ///   "unsupported codec: format tag 0x0011 (IMA ADPCM)".
    public func requirePlayableRaw() throws(WAVError) {
        guard format.encoding == .compressed else { return }
        throw WAVError(.unsupportedCodec, "unsupported codec: \(codecDescription)", formatTag: format.effectiveTag)
    }

    /// The codec in one phrase for messages: "format tag 0x0011 (IMA ADPCM)", "extensible sub-format 0x0055 (...)".
    public var codecDescription: String {
        let tag = format.effectiveTag
        if format.formatTag != 0xFFFE { return "format tag \(FormatTag.hex(tag)) (\(format.formatName))" }
        if tag == 0xFFFE { return "extensible, \(format.formatName)" }
        return "extensible sub-format \(FormatTag.hex(tag)) (\(format.formatName))"
    }

    /// PCM, float, A-law and mu-law store whole frames of `blockAlign` bytes, so frames follow from bytes.
    static func hasFixedFrames(_ format: WAVFormat) -> Bool { format.packetization == .frames }

    init(
        container: WAVContainer, format: WAVFormat, dataOffset: Int64, dataByteCount: Int64, factFrames: Int64?,
        chunks: [WAVChunkInfo], warnings: [String], fileSize: Int64, metadata: WAVMetadata = WAVMetadata(),
        isStream: Bool = false, lengthIsKnown: Bool = true
    ) {
        self.container = container
        self.format = format
        self.dataOffset = dataOffset
        self.dataByteCount = dataByteCount
        self.factFrames = factFrames
        self.chunks = chunks
        self.warnings = warnings
        self.fileSize = fileSize
        self.metadata = metadata
        self.isStream = isStream
        self.lengthIsKnown = lengthIsKnown
    }
}
