// yt-gst — the need-data feeder: pushes a WAV's data chunk into an appsrc in fixed-size chunks of whole units.
import GstPlayer
import Synchronization
import WAV

/// Feeds a WAV file to an appsrc, one chunk per need-data, the way the iOS player refilled its AudioQueue buffers.
///
/// Chunks are `chunkMilliseconds` of whole units (frames for PCM, float, A-law and mu-law; whole codec blocks for
/// ADPCM and GSM; bytes of the stream for MP3 and the like, which a parser frames) read with `pread` straight into
/// GStreamer buffers; the appsrc queue holds `buffers` chunks (max-bytes) and asks for more as each one empties.
/// Timestamps, durations and offsets come from the unit index (`PacketPlan`), so nothing accumulates. After the last
/// chunk the stream ends; a seek moves the next chunk to the unit at the seek time. Compressed data goes out with
/// the caps GStreamer's own RIFF code gives it, so the pipeline needs a decoder (`needsDecoder`,
/// `Launch.insertingDecoder`); INFO tags go out as a tag event ahead of the first buffer.
public final class WAVFeeder: Feeder, Sendable {
    /// Chunking used when the caller sets none: 0.2 s chunks, 3 queued, as in the iOS original.
    public static let defaultChunkMilliseconds = 200
    /// Chunks queued when the caller sets no count: with the default chunks, 0.6 s of audio waits in the appsrc.
    public static let defaultBuffers = 3
    /// The default chunk when no sink synchronises to the clock (`fakesink sync=false`, a file sink): 1 s, so that
    /// GStreamer handles 5 times fewer buffers, and the appsrc queues one of them (with no real-time deadline a
    /// deeper queue only holds memory). No one hears the difference, as nothing plays in real time; timestamps and
    /// data are the same.
    public static let unsynchronizedChunkMilliseconds = 1000

    /// The parsed header: the format that decides caps and units, where the data chunk lies, the tags sent.
    public let file: WAVFile
    /// The name errors and the status use for this file (its path, when opened by path).
    public let displayName: String
    /// How the data is cut into buffers and timed.
    public let plan: PacketPlan
    /// Units per chunk (frames for PCM; the last chunk may be shorter). With the default chunking and no sink that
    /// synchronises, the chunks fed are `unsynchronizedChunkMilliseconds` long instead.
    public var chunkUnits: Int64 { plan.chunkUnits }
    /// Chunks the appsrc queues before it reports enough data.
    public let buffers: Int
    /// Which units are fed and where they sit in the stream.
    public let window: FeedWindow
    private let reader: any ByteReader
    /// The chunking asked for (nil: the default), to make the same feeder at another place in the stream.
    private let chunkMilliseconds: Int?
    private let progress = Mutex(Progress())
    /// Units per chunk when no sink synchronises: set with the default chunking only (nil when the caller chose).
    private let unsynchronizedChunkUnits: Int64?
    /// Units per chunk as fed, decided at the first need-data (0 until then).
    private let chunkUnitsInUse = Atomic<Int64>(0)

    private struct Progress {
        /// The next unit (frame, block or byte) to push.
        var nextUnit: Int64 = 0
        /// The appsrc reported its queue full: stop pushing until the next need-data.
        var full = false
        /// The file's tags have gone out (once, before the first buffer).
        var tagsSent = false
        /// Where the units ran out before the window's end (a pipe's end, a file that shrank): the real end.
        var endedAt: Int64?
    }

    /// Opens `path` and prepares to feed it.
    ///
    /// - Throws: `WAVError` when the file cannot be read, is not a WAV, or holds a codec no installed decoder takes.
    public convenience init(
        path: String, chunkMilliseconds: Int? = nil, buffers: Int = defaultBuffers,
        window: FeedWindow = FeedWindow()
    ) throws(WAVError) {
        let (file, reader) = try WAVFile.open(path: path)
        try self.init(
            file: file, reader: reader, name: path, chunkMilliseconds: chunkMilliseconds, buffers: buffers,
            window: window)
    }

    /// Feeds an already parsed file through `reader` (tests inject short reads and I/O errors here).
    ///
    /// `chunkMilliseconds` nil is the default chunking: `defaultChunkMilliseconds`, or
    /// `unsynchronizedChunkMilliseconds` when no sink of the pipeline synchronises to the clock.
    public init(
        file: WAVFile, reader: any ByteReader, name: String, chunkMilliseconds: Int? = nil,
        buffers: Int = defaultBuffers, window: FeedWindow = FeedWindow()
    ) throws(WAVError) {
        try Self.checkGStreamerLimits(file.format)
        if file.format.needsDecoder {
            guard let caps = file.format.codecCaps else {
                throw WAVError(
                    .unsupportedCodec, "unsupported codec: \(file.codecDescription); GStreamer has no caps for it",
                    formatTag: file.format.effectiveTag)
            }
            guard Gst.hasDecoder(forCaps: caps) else {
                throw WAVError(
                    .unsupportedCodec,
                    "unsupported codec: \(file.codecDescription); no installed GStreamer decoder takes"
                        + " \(caps.mediaType)",
                    formatTag: file.format.effectiveTag)
            }
        } else if file.format.feedLayout == nil {
            throw WAVError(
                .invalidFormat,
                "no raw audio layout for \(file.format.validBits)-bit samples in \(file.format.bytesPerSample)-byte containers"
            )
        }
        precondition((chunkMilliseconds ?? 1) > 0 && buffers > 0, "chunk length and buffer count must be positive")
        guard let plan = PacketPlan(file: file, chunkMilliseconds: chunkMilliseconds ?? Self.defaultChunkMilliseconds)
        else {
            throw WAVError(
                .unsupportedCodec, "unsupported codec: \(file.codecDescription)", formatTag: file.format.effectiveTag)
        }
        self.file = file
        self.reader = reader
        self.chunkMilliseconds = chunkMilliseconds
        self.displayName = name
        self.plan = plan
        self.unsynchronizedChunkUnits =
            chunkMilliseconds == nil
            ? PacketPlan(file: file, chunkMilliseconds: Self.unsynchronizedChunkMilliseconds)?.chunkUnits : nil
        self.buffers = buffers
        self.window = window
        let units = window.units(in: plan)
        progress.withLock { $0.nextUnit = units.lowerBound }
    }

    /// The most channels fed: GStreamer 1.22's audioconvert, in every pipeline, asserts fewer than 64 in its channel
    /// mixer and then crashes (`gst-launch-1.0 ... ! audioconvert` too).
    public static let maxChannels = 63
    /// The highest sample rate fed: a caps rate is a gint, so a higher one cannot even be announced.
    public static let maxSampleRate = Int(Int32.max)

    /// Refuses a valid format that GStreamer cannot carry, before any pipeline sees it.
    static func checkGStreamerLimits(_ format: WAVFormat) throws(WAVError) {
        guard format.channels <= maxChannels else {
            throw WAVError(
                .unsupportedFormat,
                "\(format.channels) channels; GStreamer's audio conversion takes at most \(maxChannels)")
        }
        guard format.sampleRate <= maxSampleRate else {
            throw WAVError(
                .unsupportedFormat, "sample rate \(format.sampleRate) Hz; GStreamer takes at most \(maxSampleRate) Hz")
        }
    }

    /// The units fed: the window's start and end times as whole units of this file.
    public var units: Range<Int64> { window.units(in: plan) }

    /// Stream time of the first unit fed.
    public var startTime: ClockTime { streamTime(ofUnit: units.lowerBound) }

    /// Stream time just after the last unit fed: the window's end, or where the units ran out once they have (a
    /// pipe whose length the header did not give ends where the pipe does).
    public var endTime: ClockTime { streamTime(ofUnit: progress.withLock { $0.endedAt } ?? units.upperBound) }

    /// The same file, chunking and window, placed at stream time `streamStart`: the file that follows a pipe is
    /// opened ahead at the end its header promised and moved to where the pipe really ended.
    func moved(toStreamStart streamStart: ClockTime) -> WAVFeeder? {
        try? WAVFeeder(
            file: file, reader: reader, name: displayName, chunkMilliseconds: chunkMilliseconds, buffers: buffers,
            window: FeedWindow(start: window.start, end: window.end, streamStart: streamStart))
    }

    /// The file's whole length (not just the window).
    public var endOfFile: ClockTime { ClockTime(nanoseconds: plan.nanoseconds(atUnit: plan.totalUnits) ?? 0) }

    /// Where unit `index` sits in the stream: its time in the file, moved so the first unit fed is at
    /// `window.streamStart` when there is one.
    func streamTime(ofUnit index: Int64) -> ClockTime {
        let own = plan.nanoseconds(atUnit: index) ?? 0
        guard let start = window.streamStart else { return ClockTime(nanoseconds: own) }
        let first = plan.nanoseconds(atUnit: units.lowerBound) ?? 0
        // Saturating: a pipe of unknown length ends at "never" (UInt64.max) until it really ends.
        let (sum, overflow) = start.nanoseconds.addingReportingOverflow(own >= first ? own - first : 0)
        return ClockTime(nanoseconds: overflow ? .max : sum)
    }

    /// The time in the file that stream time `time` stands for (the inverse of `streamTime(ofUnit:)`).
    func fileTime(ofStream time: ClockTime) -> UInt64 {
        guard let start = window.streamStart else { return time.nanoseconds }
        let first = plan.nanoseconds(atUnit: units.lowerBound) ?? 0
        return time.nanoseconds >= start.nanoseconds ? time.nanoseconds - start.nanoseconds + first : first
    }

    /// Whether the pipeline needs a decoder after the appsrc: true for anything but PCM and float.
    ///
    /// Put one in with `Launch.insertingDecoder(afterSource:in:)`; PCM keeps its bit-exact path without it.
    public var needsDecoder: Bool { file.format.needsDecoder }

    /// The launch text of the decoder to put after the appsrc when `needsDecoder`: `decodebin`, or the format's
    /// preferred elements when all of them are installed (`mpegaudioparse ! mpg123audiodec` for MP3).
    ///
    /// Use it as `Launch.insertingDecoder(afterSource: "src", in: launch, decoder: feeder.decoder)`.
    public var decoder: String {
        if let chain = file.format.preferredDecoder, chain.allSatisfy(Gst.hasElement) {
            return chain.joined(separator: " ! ")
        }
        return "decodebin"
    }

    /// The caps the appsrc gets: raw audio, or the codec's caps.
    public var caps: Caps? { file.format.rawCaps ?? file.format.codecCaps }

    /// Bytes in one full chunk as pushed.
    public var chunkBytes: Int { Int(chunkUnits) * pushedUnitBytes }

    /// Bytes of one unit in the pushed buffers (as stored, unless PCM samples are widened).
    private var pushedUnitBytes: Int {
        guard let (pushed, stored) = file.format.feedLayout?.bytesPerSample else { return plan.unitBytes }
        return file.format.blockAlign / stored * pushed
    }

    // MARK: Feeder

    /// Configures the appsrc for this file and installs the callbacks that feed it; the stream ends after the last
    /// unit.
    public func attach(to appSource: any AppSourceProtocol) throws(GstError) {
        try configure(appSource, announcingDuration: file.lengthIsKnown && file.frameCount > 0)
        appSource.setCallbacks(
            AppSourceCallbacks(
                needData: { [self] source, _ in if feed(source) == .finished { source.endOfStream() } },
                enoughData: { [self] _ in queueIsFull() },
                seekData: { [self] _, time in seek(to: time) }))
    }

    /// Sets the appsrc's caps, queue and (when `announcingDuration`) the stream's length, for this file's chunks.
    func configure(_ appSource: any AppSourceProtocol, announcingDuration: Bool) throws(GstError) {
        guard let caps else {
            throw GstError(kind: .invalidValue, message: "no GStreamer caps for \(file.format.formatName)")
        }
        try appSource.configure(
            caps: caps, streamType: .seekable, maxBytes: chunkBytes * buffers,
            refillPercent: 100 - 100 / buffers, duration: announcingDuration ? endTime : nil)
    }

    /// The appsrc reported its queue full (from inside a push, see `pushChunk`): stop until the next need-data.
    func queueIsFull() {
        progress.withLock { $0.full = true }
    }

    /// Moves the next chunk to the unit at stream time `time` (clamped to the window).
    ///
    /// A stream (a pipe) cannot move: it takes only a seek to where it already is (the one the appsrc makes as it
    /// starts) and refuses any other.
    func seek(to time: ClockTime) -> Bool {
        let units = self.units
        let unit = min(max(plan.unit(atNanoseconds: fileTime(ofStream: time)), units.lowerBound), units.upperBound)
        return progress.withLock { state in
            if file.isStream && unit != state.nextUnit { return false }
            state = Progress(nextUnit: unit, tagsSent: state.tagsSent)
            return true
        }
    }

    /// Reads of a pipe that had to wait for its producer (`StreamReader.producerWaits`); 0 for a file. A count that
    /// keeps growing means a live producer (`arecord`) paces the audio, not the reader.
    public var producerWaits: Int { (reader as? StreamReader)?.producerWaits ?? 0 }

    /// Wakes and ends a read waiting on a pipe whose producer has gone quiet, so that the pipeline can stop; a file
    /// needs nothing. Call it before stopping the pipeline (from any thread); the feeder then feeds no more.
    public func stopReading() {
        (reader as? StreamReader)?.cancel()
    }

    // MARK: Feeding

    /// What one call of `feed` left behind.
    enum FeedOutcome: Equatable {
        /// Stopped pushing for now (the queue is full, the appsrc is flushing, or a read failed and was posted):
        /// the next need-data continues.
        case waiting
        /// Every unit of the window has been pushed; what follows (end of stream, another file) is the caller's.
        case finished
    }

    /// Pushes up to `buffers` chunks, stopping early when the queue is full. Never blocks on the pipeline.
    func feed(_ appSource: any AppSourceProtocol) -> FeedOutcome {
        let sendTags = progress.withLock { state in
            state.full = false
            defer { state.tagsSent = true }
            return !state.tagsSent
        }
        if sendTags {
            // From the streaming thread, before the first buffer: appsrc pushes the event ahead of it. (Sent before
            // the pipeline starts, the event would be dropped by the flushing seek a seekable appsrc does at start.)
            let tags = file.metadata.gstreamerTags
            if !tags.isEmpty { appSource.pushTags(tags.map { Message.Tag(name: $0.name, value: $0.value) }) }
        }
        let chunkUnits = chunkUnits(for: appSource)
        for _ in 0..<buffers {
            guard let chunk = claimNextChunk(units: chunkUnits) else { return .finished }
            switch pushChunk(chunk, to: appSource) {
            case .pushed: if progress.withLock({ $0.full }) { return .waiting }
            case .stopped: return .waiting
            case .fileEnded: return .finished
            }
        }
        return .waiting
    }

    /// Units per chunk as fed: decided at the first need-data, when the pipeline's sinks are known.
    private func chunkUnits(for appSource: any AppSourceProtocol) -> Int64 {
        var chunkUnits = chunkUnitsInUse.load(ordering: .relaxed)
        if chunkUnits == 0 {
            chunkUnits = plan.chunkUnits
            if let larger = unsynchronizedChunkUnits, !appSource.pipelineSynchronizesToClock {
                chunkUnits = larger
                appSource.setMaxBytes(Int(larger) * pushedUnitBytes)
            }
            chunkUnitsInUse.store(chunkUnits, ordering: .relaxed)
        }
        return chunkUnits
    }

    /// Takes the next chunk's unit range (`units` long at most), or nil when every unit has been claimed.
    private func claimNextChunk(units chunkUnits: Int64) -> Range<Int64>? {
        let end = units.upperBound
        return progress.withLock { state in
            guard state.nextUnit < end else { return nil }
            let start = state.nextUnit
            state.nextUnit = min(start + chunkUnits, end)
            return start..<state.nextUnit
        }
    }

    private enum PushOutcome { case pushed, stopped, fileEnded }

    /// Reads the units of `chunk` into a new buffer and pushes it.
    private func pushChunk(_ chunk: Range<Int64>, to appSource: any AppSourceProtocol) -> PushOutcome {
        let unitBytes = pushedUnitBytes
        let offset = file.dataOffset + chunk.lowerBound * Int64(plan.unitBytes)
        do {
            var unitsRead = 0
            let result = try appSource.push(capacity: chunk.count * unitBytes) { (buffer) throws(WAVError) -> Int in
                unitsRead = try readUnits(at: offset, count: chunk.count, into: buffer)
                return unitsRead * unitBytes
            } timing: { _ in
                let delivered = chunk.lowerBound..<(chunk.lowerBound + Int64(unitsRead))
                let timing = plan.timing(units: delivered)
                return BufferTiming(
                    pts: timing.pts.map { _ in streamTime(ofUnit: delivered.lowerBound) },
                    duration: timing.duration.map(ClockTime.init(nanoseconds:)),
                    offset: timing.offset, offsetEnd: timing.offsetEnd)
            }
            if unitsRead < chunk.count {
                // The file shrank while playing (to nothing, even): what was there has been pushed; end here, rather
                // than leave an appsrc that got nothing waiting for data forever.
                progress.withLock { state in
                    state.nextUnit = plan.totalUnits
                    state.endedAt = chunk.lowerBound + Int64(unitsRead)
                }
                return .fileEnded
            }
            return result == .ok ? .pushed : .stopped
        } catch {
            appSource.postError("\(displayName): \(error.description)")
            return .stopped
        }
    }

    /// Reads up to `count` whole units at `offset` into `buffer` in the pushed layout; returns the units read.
    private func readUnits(
        at offset: Int64, count: Int, into buffer: UnsafeMutableRawBufferPointer
    ) throws(WAVError) -> Int {
        let blockAlign = plan.unitBytes
        guard case .widenedToFloat64(let width)? = file.format.feedLayout else {
            return try reader.read(at: offset, into: buffer) / blockAlign
        }
        // Rare formats: read the packed samples aside, then widen them into the buffer.
        let stored = UnsafeMutableRawBufferPointer.allocate(byteCount: count * blockAlign, alignment: 8)
        defer { stored.deallocate() }
        let read = try reader.read(at: offset, into: stored) / blockAlign
        SampleWidening.widen(
            UnsafeRawBufferPointer(rebasing: stored[0..<(read * blockAlign)]), width: width,
            bigEndian: file.format.byteOrder == .big, into: buffer)
        return read
    }
}
