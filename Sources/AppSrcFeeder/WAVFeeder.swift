// yt-gst — the need-data feeder: pushes a WAV's data chunk into an appsrc in fixed-size chunks of whole frames.
import GstPlayer
import Synchronization

/// Feeds a WAV file to an appsrc, one chunk per need-data, the way the iOS player refilled its AudioQueue buffers.
///
/// Chunks are `chunkMilliseconds` of whole frames read with `pread` straight into GStreamer buffers; the appsrc
/// queue holds `buffers` chunks (max-bytes) and asks for more as each one empties. Timestamps, durations and
/// offsets come from the frame index, so nothing accumulates. After the last chunk the stream ends; a seek moves
/// the next chunk to the frame at the seek time.
public final class WAVFeeder: PlayableSource, AppSourceDelegate, Sendable {
    /// Chunking used when the caller sets none: 0.2 s chunks, 3 queued, as in the iOS original.
    public static let defaultChunkMilliseconds = 200
    public static let defaultBuffers = 3

    public let file: WAVFile
    public let displayName: String
    /// Frames per chunk (the last chunk may be shorter).
    public let chunkFrames: Int64
    /// Chunks the appsrc queues before it reports enough data.
    public let buffers: Int
    private let source: any ByteSource
    private let progress = Mutex(Progress())

    private struct Progress {
        /// The next frame to push.
        var nextFrame: Int64 = 0
        /// End of stream was signalled for the current segment.
        var ended = false
        /// The appsrc reported its queue full: stop pushing until the next need-data.
        var full = false
    }

    /// Opens `path` and prepares to feed it.
    ///
    /// - Throws: `WAVError` when the file cannot be read, is not a WAV, or holds a codec that needs decoding.
    public convenience init(
        path: String, chunkMilliseconds: Int = defaultChunkMilliseconds, buffers: Int = defaultBuffers
    ) throws(WAVError) {
        let (file, source) = try WAVFile.open(path: path)
        try self.init(file: file, source: source, name: path, chunkMilliseconds: chunkMilliseconds, buffers: buffers)
    }

    /// Feeds an already parsed file from `source` (tests inject short reads and I/O errors here).
    public init(
        file: WAVFile, source: any ByteSource, name: String, chunkMilliseconds: Int = defaultChunkMilliseconds,
        buffers: Int = defaultBuffers
    ) throws(WAVError) {
        try file.requirePlayableRaw()
        guard file.format.feedLayout != nil else {
            throw WAVError(
                .invalidFormat,
                "no raw audio layout for \(file.format.validBits)-bit samples in \(file.format.bytesPerSample)-byte containers")
        }
        precondition(chunkMilliseconds > 0 && buffers > 0, "chunk length and buffer count must be positive")
        self.file = file
        self.source = source
        self.displayName = name
        self.chunkFrames = max(1, Int64(file.format.sampleRate) * Int64(chunkMilliseconds) / 1000)
        self.buffers = buffers
    }

    /// Bytes in one full chunk as pushed.
    public var chunkBytes: Int { Int(chunkFrames) * pushedFrameBytes }

    /// Bytes of one frame in the pushed buffers (the stored frame, unless the samples are widened).
    private var pushedFrameBytes: Int {
        guard let (pushed, stored) = file.format.feedLayout?.bytesPerSample else { return file.format.blockAlign }
        return file.format.blockAlign / stored * pushed
    }

    // MARK: PlayableSource

    public func attach(to appSource: AppSource) throws(GstError) {
        guard let caps = file.format.rawCaps else {
            throw GstError(kind: .invalidValue, message: "no raw audio format for \(file.format.formatName)")
        }
        try appSource.configure(
            caps: caps, streamType: .seekable, maxBytes: chunkBytes * buffers,
            refillPercent: 100 - 100 / buffers,
            duration: ClockTime(frames: file.frameCount, rate: file.format.sampleRate))
        appSource.setDelegate(self)
    }

    // MARK: AppSourceDelegate (streaming thread)

    public func appSourceNeedsData(_ appSource: AppSource, length: Int?) {
        progress.withLock { $0.full = false }
        for _ in 0..<buffers {
            guard let frames = claimNextChunk() else {
                appSource.endOfStream()
                return
            }
            guard pushChunk(frames, to: appSource) else { return }
            if progress.withLock({ $0.full }) { return }
        }
    }

    public func appSourceHasEnoughData(_ appSource: AppSource) {
        // Called from inside push (see pushChunk), so the lock is not held here.
        progress.withLock { $0.full = true }
    }

    public func appSource(_ appSource: AppSource, seekTo time: ClockTime) -> Bool {
        let frame = min(time.frames(rate: file.format.sampleRate), file.frameCount)
        progress.withLock { $0 = Progress(nextFrame: frame) }
        return true
    }

    /// Takes the next chunk's frame range, or nil (once) when the stream should end.
    private func claimNextChunk() -> Range<Int64>? {
        progress.withLock { state in
            guard state.nextFrame < file.frameCount else {
                if state.ended { return nil }
                state.ended = true
                return nil
            }
            let start = state.nextFrame
            state.nextFrame = min(start + chunkFrames, file.frameCount)
            return start..<state.nextFrame
        }
    }

    /// Reads `frames` into a new buffer and pushes it. Returns false when feeding should stop for now.
    private func pushChunk(_ frames: Range<Int64>, to appSource: AppSource) -> Bool {
        let blockAlign = file.format.blockAlign
        let frameBytes = pushedFrameBytes
        let offset = file.dataOffset + frames.lowerBound * Int64(blockAlign)
        do {
            var delivered = frames
            let result = try appSource.push(capacity: frames.count * frameBytes) { (buffer) throws(WAVError) -> Int in
                let read = try readFrames(at: offset, count: frames.count, into: buffer)
                return read * frameBytes
            } timing: { written in
                delivered = frames.lowerBound..<(frames.lowerBound + Int64(written / frameBytes))
                return BufferTiming(frames: delivered, rate: file.format.sampleRate)
            }
            if delivered.count < frames.count {
                // The file shrank while playing: what was there has been pushed; end here.
                progress.withLock {
                    $0.nextFrame = file.frameCount
                    $0.ended = true
                }
                appSource.endOfStream()
                return false
            }
            return result == .ok
        } catch {
            appSource.postError("\(displayName): \(error.description)")
            return false
        }
    }

    /// Reads up to `count` whole frames at `offset` into `buffer` in the pushed layout; returns the frames read.
    private func readFrames(at offset: Int64, count: Int, into buffer: UnsafeMutableRawBufferPointer) throws(WAVError) -> Int {
        let blockAlign = file.format.blockAlign
        guard case .widenedToFloat64(let width)? = file.format.feedLayout else {
            return try source.read(at: offset, into: buffer) / blockAlign
        }
        // Rare formats: read the packed samples aside, then widen them into the buffer.
        let stored = UnsafeMutableRawBufferPointer.allocate(byteCount: count * blockAlign, alignment: 8)
        defer { stored.deallocate() }
        let frames = try source.read(at: offset, into: stored) / blockAlign
        SampleWidening.widen(
            UnsafeRawBufferPointer(rebasing: stored[0..<(frames * blockAlign)]), width: width,
            bigEndian: file.format.byteOrder == .big, into: buffer)
        return frames
    }
}
