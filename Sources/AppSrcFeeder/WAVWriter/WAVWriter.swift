// yt-gst — a WAV writer whose file is a valid WAV at every instant: the recording side of the reader in WAV/.

/// Writes a recording to a WAV file so that a crash, a `kill -9`, a power cut or a full disk at any moment leaves a
/// file every reader opens, whose header states exactly the whole frames that are on disk.
///
/// Each `append` writes whole frames after the data and then rewrites the header with the new sizes, in that order, so the header never claims bytes that are not there; the file is
/// `fdatasync`ed at least every `syncInterval`, which bounds what a power cut can take. The header is laid out once
/// (see `WAVHeader`): a `JUNK` chunk reserves room for `ds64`, and the file turns into an RF64 by itself when its
/// sizes outgrow 32 bits. Markers go into a reserved area in the header as they come; those that do not fit are
/// written after the data at `finish()`.
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
        try file.synchronize()
    }

    /// Where the samples start in the file.
    public var dataOffset: Int { header.dataOffset }

    /// Whole frames written.
    public var frames: UInt64 { dataBytes / UInt64(format.blockAlign) }

    /// The file's length as the header states it (without the markers written at `finish()`).
    ///
    /// An odd-sized data chunk gets no pad byte while it is the last chunk: every reader tried takes it so, and
    /// GStreamer's wavparse (1.22, pull mode) plays nothing from a file that ends in a pad byte.
    public var fileLength: UInt64 { UInt64(dataOffset) + dataBytes }

    /// The markers so far: frame and label.
    public var markerPositions: [(frame: UInt64, label: String)] { markers.map { (UInt64($0.frame), $0.label) } }

    private var sizes: WAVHeader.Sizes {
        WAVHeader.Sizes(riff: fileLength - 8, data: dataBytes, frames: frames)
    }

    /// Appends samples in the file's format; a trailing partial frame waits for the next call.
    ///
    /// - Throws: `WAVWriteError` (`.noSpace`, `.io`) when the bytes could not all be written. The file then ends at the
    ///   last whole frame that was, with a header that says so; call `finish()` and stop.
    public func append(_ bytes: [UInt8]) throws(WAVWriteError) {
        precondition(!finished, "append after finish")
        if let failure { throw failure }
        var pending = carry.isEmpty ? bytes : carry + bytes
        let whole = pending.count - pending.count % format.blockAlign
        carry = Array(pending[whole...])
        guard whole > 0 else { return }
        pending.removeLast(pending.count - whole)
        let offset = Int64(dataOffset) + Int64(dataBytes)
        do throws(WAVWriteError) {
            let written = try write(pending, at: offset)
            guard written == pending.count else {
                throw WAVWriteError(.noSpace, "the device is full (\(written) of \(pending.count) bytes written)")
            }
        } catch {
            fail(error)
            throw error
        }
        dataBytes += UInt64(whole)
        guard !streaming else { return }
        do throws(WAVWriteError) {
            try rewriteHeader()
            if lastSync.duration(to: .now) >= options.syncInterval {
                try file.synchronize()
                lastSync = .now
            }
        } catch {
            fail(error)
            throw error
        }
    }

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

    /// Writes the markers that did not fit in the header, the final header, and syncs. Call once, last.
    ///
    /// - Throws: `WAVWriteError` when the final header or sync fails (the markers after the data are dropped when
    ///   they cannot be written, which leaves the file valid).
    public func finish() throws(WAVWriteError) {
        guard !finished else { return }
        finished = true
        guard !streaming else { return }
        var trailer: UInt64 = 0
        if !markersInHeader {
            _ = header.place([])
            // The pad byte an odd data chunk needs once a chunk follows it.
            let bytes = [UInt8](repeating: 0, count: Int(dataBytes % 2)) + WAVHeader.markerChunks(markers)
            do throws(WAVWriteError) {
                try writeAll(bytes, at: Int64(fileLength))
                trailer = UInt64(bytes.count)
            } catch {
                try? file.truncate(to: Int64(fileLength))
            }
        }
        try rewriteHeader(trailer: trailer)
        try file.synchronize()
    }

    /// Writes the header with the current sizes, first turning it into RF64 when they outgrow the threshold.
    private func rewriteHeader(trailer: UInt64 = 0) throws(WAVWriteError) {
        var sizes = self.sizes
        sizes.riff += trailer
        if !isRF64 && (sizes.riff > options.rf64Threshold || sizes.data > options.rf64Threshold) { isRF64 = true }
        header.patch(sizes, rf64: isRF64)
        try writeAll(header.bytes, at: 0)
    }

    private func writeAll(_ bytes: [UInt8], at offset: Int64) throws(WAVWriteError) {
        guard try write(bytes, at: offset) == bytes.count else { throw WAVWriteError(.noSpace, "the device is full") }
    }

    /// `file.write` for an array (withUnsafeBytes rethrows untyped: the typed error is carried out by hand).
    private func write(_ bytes: [UInt8], at offset: Int64) throws(WAVWriteError) -> Int {
        let outcome = bytes.withUnsafeBytes { buffer in
            Result { () throws(WAVWriteError) -> Int in try file.write(buffer, at: offset) }
        }
        return try outcome.get()
    }

    /// Records the first failure and cuts the file back to what the header states (a short write may have left a
    /// partial frame).
    private func fail(_ error: WAVWriteError) {
        if failure == nil { failure = error }
        guard !streaming else { return }
        try? file.truncate(to: Int64(fileLength))
    }
}
