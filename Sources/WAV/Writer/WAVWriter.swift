// yt-gst — a WAV writer whose file is a valid WAV at every instant: the recording side of the reader in WAV/.
import Glibc

/// Writes a recording to a WAV file so that a crash, a `kill -9`, a power cut or a full disk at any moment leaves a
/// file every reader opens, whose header states exactly the whole frames that are on disk.
///
/// No single system call can both grow a file and change the sizes in its header, so the file is grown ahead of
/// the audio: after the data chunk stands a `JUNK` chunk (sparse, zeros) reaching to the end of the file, and the
/// RIFF size covers it. Each `append` then changes no length: it writes a new `JUNK` header where the audio will
/// end and the audio behind the old one (both inside the old `JUNK` body, invisible to readers), rewrites the
/// header with the new data size, and last overwrites the old `JUNK` header with the first bytes of the audio. A
/// kill between those steps leaves a file that is whole and consistent; at worst (between the last two) nine of
/// its audio bytes are the old chunk header. Only when the tail runs out (every `preallocation` bytes, 4 MiB by
/// default) do the length and the sizes change in three steps, a window of three system calls in which our own
/// reader would warn about the tail; `finish()` cuts the tail off. The file is `fdatasync`ed at least every
/// `syncInterval`, which bounds what a power cut can take.
///
/// The header is laid out once (see `WAVHeader`): a `JUNK` chunk reserves room for `ds64`, and the file turns into
/// an RF64 by itself when its sizes outgrow 32 bits. Markers go into a reserved area in the header as they come;
/// those that do not fit are written after the data at `finish()`.
///
/// On a file that is not seekable (a pipe) the header is written once with "unknown" sizes (0xFFFFFFFF, a streaming
/// header, as arecord and sox write) and the samples follow; markers are then not written.
public final class WAVWriter {
    /// What the writer may be told besides the format.
    public struct Options: Sendable {
        /// The longest time between two `fdatasync`s.
        public var syncInterval: Duration = .seconds(1)
        /// The RIFF size beyond which the file becomes RF64: 32 bits by default; tests lower it.
        public var rf64Threshold: UInt64 = 0xFFFF_FFFF
        /// Bytes reserved in the header for markers (about 40 of them); 0: markers only after the data.
        public var markerArea: Int = 2048
        /// How far the file is grown ahead of the audio at a time (see the type's discussion).
        public var preallocation: UInt64 = 4 << 20
        /// LIST/INFO entries: title (INAM), artist (IART), comment (ICMT)...
        public var info: [WAVMetadata.InfoEntry] = []
        /// The Broadcast Wave bext chunk, if one is wanted.
        public var broadcast: WAVMetadata.Broadcast?

        public init() {}
    }

    public let format: WAVFormat
    public let options: Options
    private let file: any WritableFile
    private var header: WAVHeader
    private let streaming: Bool
    /// Bytes of whole frames on disk, all stated by the header.
    public private(set) var dataBytes: UInt64 = 0
    /// Whether the header has become RF64.
    public private(set) var isRF64 = false
    /// The first error that stopped the writing; the file holds what came before it.
    public private(set) var failure: WAVWriteError?
    private var markers: [WAVHeader.Marker] = []
    /// False once a marker did not fit in the header: then all go after the data at `finish()`.
    private var markersInHeader = true
    /// Bytes of an incomplete frame, kept until the rest arrives.
    private var carry: [UInt8] = []
    private var lastSync = ContinuousClock.now
    /// The end of the file: the end of the JUNK tail after the data, or of the data when there is no tail.
    private var reservedEnd: UInt64 = 0
    private var finished = false

    /// Writes the header (and syncs it), so the file is a valid, empty WAV from the start.
    ///
    /// - Throws: `WAVWriteError` when the header cannot be written.
    public init(file: any WritableFile, format: WAVFormat, options: Options = Options()) throws(WAVWriteError) {
        precondition(format.blockAlign > 0, "a recording needs whole frames")
        self.file = file
        self.format = format
        self.options = options
        streaming = !file.isSeekable
        header = WAVHeader(
            format: format, info: options.info, broadcast: options.broadcast,
            markerArea: streaming ? 0 : options.markerArea)
        header.patch(sizes, rf64: false, streaming: streaming)
        try writeAll(header.bytes, at: 0)
        reservedEnd = UInt64(header.dataOffset)
        try file.synchronize()
    }

    /// Where the samples start in the file.
    public var dataOffset: Int { header.dataOffset }

    /// Whole frames written.
    public var frames: UInt64 { dataBytes / UInt64(format.blockAlign) }

    /// The file's length once finished (without the markers written after the data at `finish()`).
    ///
    /// A finished odd-sized data chunk gets no pad byte when it is the last chunk: every reader tried takes it so,
    /// and GStreamer's wavparse (1.22, pull mode) plays nothing from a file that ends in a pad byte.
    public var fileLength: UInt64 { UInt64(dataOffset) + dataBytes }

    /// Where the chunk after the data starts: after the pad byte of an odd-sized data chunk.
    private var tailStart: UInt64 { fileLength + dataBytes % 2 }

    /// The markers so far: frame and label.
    public var markerPositions: [(frame: UInt64, label: String)] { markers.map { (UInt64($0.frame), $0.label) } }

    private var sizes: WAVHeader.Sizes {
        WAVHeader.Sizes(riff: max(reservedEnd, fileLength) - 8, data: dataBytes, frames: frames)
    }

    /// Appends samples in the file's format; a trailing partial frame waits for the next call.
    ///
    /// - Throws: `WAVWriteError` (`.noSpace`, `.io`) when the bytes could not all be written. The file then ends at the
    ///   last whole frame that was, with a header that says so; call `finish()` and stop.
    public func append(_ bytes: [UInt8]) throws(WAVWriteError) {
        precondition(!finished, "append after finish")
        if let failure { throw failure }
        var pending = carry.isEmpty ? bytes : carry + bytes
        var whole = pending.count - pending.count % format.blockAlign
        // The first bytes replace the old JUNK header (and pad byte): fewer wait for the next call.
        if !streaming && whole < 10 { whole = 0 }
        carry = Array(pending[whole...])
        guard whole > 0 else { return }
        pending.removeLast(pending.count - whole)
        do throws(WAVWriteError) {
            if streaming {
                try writeAll(pending, at: 0)
                dataBytes += UInt64(whole)
            } else {
                try commit(pending)
                if lastSync.duration(to: .now) >= options.syncInterval {
                    try file.synchronize()
                    lastSync = .now
                }
            }
        } catch {
            if failure == nil { failure = error }
            throw error
        }
    }

    /// Adds `bytes` (whole frames, at least 10 bytes) to the data chunk without a moment where the file is not valid.
    private func commit(_ bytes: [UInt8]) throws(WAVWriteError) {
        let start = fileLength
        let newData = dataBytes + UInt64(bytes.count)
        let newTail = UInt64(dataOffset) + newData + newData % 2
        if reservedEnd < newTail + 8 { try grow(to: max(newTail + 8, reservedEnd + options.preallocation)) }
        // 1. The JUNK header of the tail to be, inside the present tail's body.
        try writeAll(Self.junkHeader(size: reservedEnd - newTail - 8), at: Int64(newTail))
        // 2. The audio behind the present JUNK header (and the pad byte), plus the new pad byte if any.
        let prefix = Int(tailStart - start) + 8
        try writeAll(bytes[prefix...], at: Int64(start) + Int64(prefix))
        if newData % 2 == 1 { try writeAll([0], at: Int64(UInt64(dataOffset) + newData)) }
        // 3. The header: the data chunk now ends at the new JUNK header.
        dataBytes = newData
        try rewriteHeader()
        // 4. The first bytes of the audio over the old JUNK header.
        try writeAll(bytes[..<prefix], at: Int64(start))
    }

    /// Grows the file to `end` with a longer JUNK tail: the only steps at which a reader can see a tail that does
    /// not fit the sizes (the file longer than they say, between the ftruncate and the two size writes).
    private func grow(to end: UInt64) throws(WAVWriteError) {
        try file.truncate(to: Int64(end))
        try writeAll(Self.junkHeader(size: end - tailStart - 8), at: Int64(tailStart))
        reservedEnd = end
        try rewriteHeader()
    }

    static func junkHeader(size: UInt64) -> [UInt8] { Array("JUNK".utf8) + littleEndian(UInt32(size)) }

    /// Marks the current end of the recording; returns the marker's number (1, 2, ...), nil on a stream.
    ///
    /// - Throws: `WAVWriteError` when the header with the marker cannot be written.
    @discardableResult
    public func addMarker(label: String? = nil) throws(WAVWriteError) -> Int? {
        guard !streaming, failure == nil else { return nil }
        let number = markers.count + 1
        markers.append(WAVHeader.Marker(frame: UInt32(clamping: frames), label: label ?? "marker \(number)"))
        if markersInHeader {
            if header.place(markers) {
                try rewriteHeader()
            } else {
                markersInHeader = false
            }
        }
        return number
    }

    /// Writes the markers that did not fit in the header, the final header, cuts the JUNK tail off and syncs.
    /// Call once, last.
    ///
    /// - Throws: `WAVWriteError` when the final header, the cut or the sync fails (markers after the data are
    ///   dropped when they cannot be written, which leaves the file valid).
    public func finish() throws(WAVWriteError) {
        guard !finished else { return }
        finished = true
        guard !streaming else { return }
        var end = fileLength
        if !markersInHeader {
            _ = header.place([])
            // The pad byte the data chunk needs once a chunk follows it, then the markers, then (until the cut)
            // a JUNK chunk over the rest of the tail, so the file stays whole at every step.
            let trailer = [UInt8](repeating: 0, count: Int(dataBytes % 2)) + WAVHeader.markerChunks(markers)
            let trailerEnd = fileLength + UInt64(trailer.count)
            do throws(WAVWriteError) {
                if reservedEnd < trailerEnd + 8 { try grow(to: trailerEnd + 8) }
                try writeAll(Self.junkHeader(size: reservedEnd - trailerEnd - 8), at: Int64(trailerEnd))
                try writeAll(trailer, at: Int64(fileLength))
                end = trailerEnd
            } catch {
                // Without the markers: the JUNK tail still stands after the data.
            }
        }
        // The sizes first (the tail then lies past the RIFF's end, still a whole chunk), then the cut.
        try rewriteHeader(end: end)
        try file.truncate(to: Int64(end))
        reservedEnd = end
        try file.synchronize()
    }

    /// Writes the header with the current sizes (the file ending at `end`, by default where it does now), first
    /// turning it into RF64 when they outgrow the threshold.
    private func rewriteHeader(end: UInt64? = nil) throws(WAVWriteError) {
        var sizes = self.sizes
        if let end { sizes.riff = end - 8 }
        if !isRF64 && (sizes.riff > options.rf64Threshold || sizes.data > options.rf64Threshold) { isRF64 = true }
        header.patch(sizes, rf64: isRF64)
        try writeAll(header.bytes, at: 0)
    }

    /// A short write is a full device: said in the words of any other write that met ENOSPC (whether the device
    /// filled in the middle of a write or at its start is a matter of timing).
    private func writeAll(_ bytes: ArraySlice<UInt8>, at offset: Int64) throws(WAVWriteError) {
        let written = try write(bytes, at: offset)
        guard written == bytes.count else {
            throw WAVWriteError(
                .noSpace, "write failed at byte \(offset + Int64(written)): \(FileReader.systemMessage(ENOSPC))")
        }
    }

    private func writeAll(_ bytes: [UInt8], at offset: Int64) throws(WAVWriteError) {
        try writeAll(bytes[...], at: offset)
    }

    /// `file.write` for bytes in memory (withUnsafeBytes rethrows untyped: the typed error is carried out by hand).
    private func write(_ bytes: ArraySlice<UInt8>, at offset: Int64) throws(WAVWriteError) -> Int {
        let outcome = bytes.withUnsafeBytes { buffer in
            Result { () throws(WAVWriteError) -> Int in try file.write(buffer, at: offset) }
        }
        return try outcome.get()
    }
}
