// yt-gst — one PipeWire playback stream behind `ytpipewiresink`: the samples its ring buffer thread writes, handed
// to PipeWire's graph cycle by cycle, and how far from the speaker they are.
internal import CPipeWire
import Glibc
import Synchronization

/// The PipeWire side of one `ytpipewiresink` (see PipeWireSink.swift): a thread loop, a playback stream on it and
/// a small queue between the sink's ring buffer thread (`write`) and the graph (`process`).
///
/// Why a stream of our own: `pipewiresink` hands each buffer to the graph when its time comes, so the graph plays it
/// at its next cycle (rooms land on PipeWire's 256-sample grid), and its clock does not say where the speaker is.
/// Here the sink's clock is the stream's own timing (`pw_stream_get_time_n`: the device delay and what is queued,
/// at the monotonic instant of the last cycle), so an `OutputAligner` places the output to the sample.
///
/// Everything but `target` is touched under the thread loop's lock: the loop's own thread runs the stream's
/// callbacks with it held, the ring buffer thread and clock readers take it. `process` runs there too, not on
/// PipeWire's realtime data thread (`PW_STREAM_FLAG_RT_PROCESS`): tried, two rooms sat 4-5 ms apart, as a cycle's
/// buffer then plays in that cycle or the next.
final class PipeWireOutput: @unchecked Sendable {
    /// What went wrong opening or playing, for the sink's error message.
    struct Failure: Error {
        var message: String
        var debug: String
    }

    /// The sink (node.name or object serial) to connect to; nil: PipeWire's default.
    var target: String? {
        get { settings.withLock { $0 } }
        set { settings.withLock { $0 = newValue } }
    }
    private let settings = Mutex<String?>(nil)

    private var library = CPW_Library()
    private var loop: OpaquePointer?
    private var stream: OpaquePointer?
    private var state = PW_STREAM_STATE_UNCONNECTED
    private var streamError: String?
    private var queue = FrameQueue()
    /// The sink's segment (frames): what the ring buffer thread writes at once, and what the queue keeps beyond the
    /// graph's last request.
    private var periodFrames = 0
    /// What the graph asked for last (frames): the queue holds at most this and a period.
    private var requestedFrames = 0
    private var rate = 0
    /// Bumped by `reset`: a `write` waiting for room returns at once.
    private var generation = 0
    /// Frames of silence still to be dropped from what is written: at the first write after the stream is connected,
    /// what the graph will play before it (see `write`); nil until that first write.
    private var catchUp: Int? = nil
    /// Bumped by `process`: the graph's cycles this stream took part in.
    private var cycles = 0
    /// Whether the sink is paused (`pause`): the graph takes nothing from the stream, and `write` queues what it is
    /// given without waiting for room.
    private var paused = false

    /// libpipewire's functions, loaded once per process (for every stream: `PipeWireCycles` too), or why they cannot
    /// be.
    static let loaded: Result<Library, Failure> = {
        var library = CPW_Library()
        if let problem = CPW_load(&library) {
            return .failure(
                Failure(
                    message: "PipeWire's library is missing (libpipewire-0.3.so.0)", debug: String(cString: problem)))
        }
        return .success(Library(functions: library))
    }()

    /// The table of function pointers, written once when loaded and only read after.
    struct Library: @unchecked Sendable {
        let functions: CPW_Library
    }

    /// The thread loop's name, which its thread takes (at most 15 characters, as Linux keeps them).
    static let threadName = "yt-gst pipewire"

    /// Starts the thread loop (the sink's `open`).
    func open() throws(Failure) {
        library = try Self.loaded.get().functions
        guard let loop = library.thread_loop_new!(Self.threadName, nil) else {
            throw Failure(message: "could not make a PipeWire thread loop", debug: String(cString: strerror(errno)))
        }
        guard library.thread_loop_start!(loop) == 0 else {
            library.thread_loop_destroy!(loop)
            throw Failure(message: "could not start a PipeWire thread loop", debug: String(cString: strerror(errno)))
        }
        self.loop = loop
    }

    /// Stops and frees the thread loop (the sink's `close`).
    func close() {
        guard let loop else { return }
        library.thread_loop_stop!(loop)
        library.thread_loop_destroy!(loop)
        self.loop = nil
    }

    /// Connects a playback stream of `format` and waits (at most 5 s) until PipeWire has linked it or refused it
    /// (the sink's `prepare`).
    func connect(_ format: Format, periodFrames: Int) throws(Failure) {
        guard let loop else { throw Failure(message: "PipeWire output is not open", debug: "") }
        library.thread_loop_lock!(loop)
        defer { library.thread_loop_unlock!(loop) }
        guard
            let stream = library.stream(
                on: loop, named: "yt-gst",
                properties: [
                    ("media.type", "Audio"), ("media.category", "Playback"), ("media.role", "Music"),
                    ("node.name", "yt-gst"), ("node.latency", "\(periodFrames)/\(format.rate)"),
                ] + (target.map { [("target.object", $0)] } ?? []), events: Self.events,
                data: Unmanaged.passUnretained(self).toOpaque())
        else { throw Failure(message: "could not make a PipeWire stream", debug: String(cString: strerror(errno))) }
        self.stream = stream
        (state, streamError, rate, self.periodFrames, requestedFrames, catchUp, paused) =
            (PW_STREAM_STATE_UNCONNECTED, nil, format.rate, periodFrames, periodFrames, nil, false)
        queue = FrameQueue(frameSize: format.frameSize, capacity: 2 * periodFrames + 8192)

        let result = connect(stream, format)
        guard result >= 0 else {
            disconnectLocked()
            throw Failure(
                message: "could not connect to PipeWire (\(String(cString: strerror(-result)))): is a PipeWire server "
                    + "running for this user (XDG_RUNTIME_DIR, PIPEWIRE_REMOTE)?", debug: "pw_stream_connect: \(result)"
            )
        }
        let deadline = KernelClock.nanoseconds(CLOCK_MONOTONIC) + 5_000_000_000
        while state != PW_STREAM_STATE_PAUSED && state != PW_STREAM_STATE_STREAMING
            && state != PW_STREAM_STATE_ERROR && KernelClock.nanoseconds(CLOCK_MONOTONIC) < deadline
        {
            _ = library.thread_loop_timed_wait!(loop, 1)
        }
        guard state == PW_STREAM_STATE_PAUSED || state == PW_STREAM_STATE_STREAMING else {
            let why = streamError ?? "no answer in 5 s (is PipeWire running?)"
            disconnectLocked()
            throw Failure(
                message: "PipeWire refused the stream" + (target.map { " to \($0)" } ?? ""), debug: why)
        }
    }

    /// Asks PipeWire to link `stream` to its target (or the default sink) in `format`; returns pw_stream_connect's
    /// result.
    private func connect(_ stream: OpaquePointer, _ format: Format) -> Int32 {
        var podBuffer = [UInt8](repeating: 0, count: 1024)
        return podBuffer.withUnsafeMutableBufferPointer { bytes in
            func connect(positions: UnsafePointer<UInt32>?) -> Int32 {
                var parameter = CPW_audio_format(
                    bytes.baseAddress, UInt32(bytes.count), format.spaFormat, UInt32(format.rate),
                    UInt32(format.channels), positions)
                let flags = PW_STREAM_FLAG_AUTOCONNECT.rawValue | PW_STREAM_FLAG_MAP_BUFFERS.rawValue
                return library.stream_connect!(
                    stream, SPA_DIRECTION_OUTPUT, UInt32.max, pw_stream_flags(rawValue: flags), &parameter, 1)
            }
            guard let positions = format.positions else { return connect(positions: nil) }
            return positions.withUnsafeBufferPointer { connect(positions: $0.baseAddress) }
        }
    }

    /// Disconnects and frees the stream (the sink's `unprepare`).
    func disconnect() {
        guard let loop else { return }
        library.thread_loop_lock!(loop)
        disconnectLocked()
        library.thread_loop_unlock!(loop)
    }

    private func disconnectLocked() {
        guard let stream else { return }
        _ = library.stream_disconnect!(stream)
        library.stream_destroy!(stream)
        self.stream = nil
        queue = FrameQueue()
        generation += 1
    }

    /// Queues what fits of `bytes` for the graph, waiting for room while the queue is full (the sink's ring buffer
    /// thread): returns the bytes taken, or nil once the stream failed.
    ///
    /// The silence a new stream starts with is dropped, up to as many frames as the graph plays before a frame
    /// queued now (the silence it already has, the rest of its cycle, the device's delay), and counts as heard. Why:
    /// the sink's clock is the frames written less `delay`, so it stood still at zero until the first frame written
    /// reached the speaker, and a receiver's first sample was placed as if it had not: every room played that much
    /// late (1.6-11 ms, differing between rooms) and skipped it when `OutputAligner` made its start-up move. Only
    /// silence (the ring buffer's before its first sample): a player's first samples are all heard, its clock
    /// standing still meanwhile as before; and only once per connection, as a pause or flush keeps the clock going.
    func write(_ bytes: UnsafeRawBufferPointer) -> Int? {
        guard let loop else { return nil }
        library.thread_loop_lock!(loop)
        defer { library.thread_loop_unlock!(loop) }
        if catchUp == nil { catchUp = silentFrames(bytes, atMost: 1) == 1 ? framesBeforeFirstWrite() : 0 }
        if let frames = catchUp, frames > 0 {
            let dropped = silentFrames(bytes, atMost: frames)
            // A sound ends the catch-up: it is to be heard.
            catchUp = dropped < min(frames, bytes.count / queue.frameSize) ? 0 : frames - dropped
            if dropped > 0 { return dropped * queue.frameSize }
        }
        let started = generation
        while generation == started {
            if state == PW_STREAM_STATE_ERROR || stream == nil { return nil }
            // Paused, the graph takes nothing until it plays again: the rest of the segment waits in the queue (the
            // ring buffer thread drops what is not taken).
            if paused { return queue.push(bytes, upTo: queue.capacity - queue.count) }
            // All of it or nothing: the sink's clock counts a segment as written once the whole of it is, so a
            // part queued while the rest waits would put the clock that part behind the speaker.
            let room = min(requestedFrames + periodFrames, queue.capacity) - queue.count
            if room >= min(bytes.count / queue.frameSize, periodFrames) { return queue.push(bytes, upTo: room) }
            _ = library.thread_loop_timed_wait!(loop, 1)
        }
        return bytes.count  // reset while waiting: what was to be written is dropped with the rest
    }

    /// The whole frames of silence (zero bytes: every format but unsigned 8-bit) `bytes` starts with, up to `limit`.
    private func silentFrames(_ bytes: UnsafeRawBufferPointer, atMost limit: Int) -> Int {
        let end = min(limit, bytes.count / queue.frameSize) * queue.frameSize
        let sound = bytes[..<end].firstIndex { $0 != 0 } ?? end
        return sound / queue.frameSize
    }

    /// What the graph plays before the first frame written (lock held): `inStream` read just after the second
    /// cycle's start from now, plus the wait for it. Why not at once: a stream's timing is a cycle or two old when
    /// it has just joined the graph (measured: stamped 5.5-9.8 ms before, as the graph took it in), and a time from
    /// then put the rooms' first samples up to 4.4 ms off; why not after the next cycle: its reading still fell
    /// short now and then (by up to 234 frames, 4.9 ms, in 5 of 20 rooms; the cycles after it agreed within 25).
    private func framesBeforeFirstWrite() -> Int {
        let asked = KernelClock.nanoseconds(CLOCK_MONOTONIC)
        let settled = cycles + 2
        while cycles < settled && state == PW_STREAM_STATE_STREAMING
            && KernelClock.nanoseconds(CLOCK_MONOTONIC) - asked < Self.firstCycleLimit
        {
            _ = library.thread_loop_timed_wait!(loop, 1)
        }
        let waited = Double(KernelClock.nanoseconds(CLOCK_MONOTONIC) - asked) / 1e9 * Double(rate)
        return Int((inStream() + waited).rounded())
    }

    /// How long (ns) the first write waits for its cycles: longer than two of PipeWire's longest quantum (8192
    /// frames at 48 kHz, 171 ms) would be a graph that does not run.
    private static let firstCycleLimit: Int64 = 400_000_000

    /// The frames written but not yet heard (the sink's `delay`: its clock is the frames written less this): the
    /// queue and what the graph plays before it (`inStream`).
    func delay() -> Int {
        guard let loop else { return 0 }
        library.thread_loop_lock!(loop)
        defer { library.thread_loop_unlock!(loop) }
        return max(Int((Double(queue.count) + inStream()).rounded()), 0)
    }

    /// What the graph plays before a frame queued now (frames; lock held): what the stream holds, the delay to the
    /// device and what is left of the cycle playing now; 0 before the stream has timing. PipeWire stamps its timing
    /// at each cycle's start, so this is exact between cycles too, not a 256-frame staircase.
    private func inStream() -> Double {
        guard let stream else { return 0 }
        var time = pw_time()
        guard library.stream_get_time_n!(stream, &time, MemoryLayout<pw_time>.size) == 0, time.rate.denom > 0,
            time.now > 0
        else { return 0 }
        let ticksPerSecond = Double(time.rate.denom) / Double(max(time.rate.num, 1))
        let device = Double(time.delay) / ticksPerSecond * Double(rate)
        // The cycle the graph took at `now` plays until the next one (so its frames are not all heard yet), and no
        // further: a graph that stalls stops the clock with the sound.
        let playing = Double(requestedFrames)
        // On the kernel's clock, as PipeWire stamped `now`: a process under libfaketime must not mix in its own.
        let elapsed = min(Double(KernelClock.nanoseconds(CLOCK_MONOTONIC) - time.now) / 1e9 * Double(rate), playing)
        return Double(time.queued) + Double(time.buffered) + device + playing - elapsed
    }

    /// Paused, the graph takes nothing from the stream, what is queued and in the stream is kept, and a waiting
    /// `write` finishes; played again, the stream goes on from there (the sink's `pause` and `resume`). Why not
    /// `reset`, which GstAudioSink calls where there is no `pause`: it dropped the queue and what the stream held,
    /// 16-24 ms of the file at every resume (measured: `play` on the lab's PipeWire, paused and resumed through its
    /// IPC socket).
    func setPaused(_ paused: Bool) {
        guard let loop else { return }
        library.thread_loop_lock!(loop)
        self.paused = paused
        if let stream { _ = library.stream_set_active!(stream, !paused) }
        library.thread_loop_signal!(loop, false)
        library.thread_loop_unlock!(loop)
    }

    /// Drops what is queued and wakes a waiting `write` (the sink's `reset`, for a stop, and `clear_all`, for a
    /// flush).
    func reset() {
        guard let loop else { return }
        library.thread_loop_lock!(loop)
        queue.removeAll()
        generation += 1
        library.thread_loop_signal!(loop, false)
        library.thread_loop_unlock!(loop)
    }

    /// The graph wants the next cycle's samples (the loop's thread, lock held): the queue's, silence for what it
    /// lacks, so that the stream's time counts every frame played.
    private func process() {
        cycles += 1
        guard let stream, let buffer = library.stream_dequeue_buffer!(stream) else { return }
        defer {
            _ = library.stream_queue_buffer!(stream, buffer)
            library.thread_loop_signal!(loop, false)
        }
        guard let data = CPW_buffer_data(buffer), let memory = data.pointee.data else { return }
        let frameSize = queue.frameSize
        let fits = Int(data.pointee.maxsize) / frameSize
        let requested = buffer.pointee.requested > 0 ? Int(buffer.pointee.requested) : periodFrames
        let frames = min(requested, fits)
        requestedFrames = frames
        let taken = queue.pop(into: memory, frames: frames)
        memset(memory + taken * frameSize, 0, (frames - taken) * frameSize)
        data.pointee.chunk.pointee.offset = 0
        data.pointee.chunk.pointee.stride = Int32(frameSize)
        data.pointee.chunk.pointee.size = UInt32(frames * frameSize)
        buffer.pointee.size = UInt64(frames)
    }

    private func stateChanged(to newState: pw_stream_state, error: UnsafePointer<CChar>?) {
        state = newState
        if let error { streamError = String(cString: error) }
        library.thread_loop_signal!(loop, false)
    }

    /// The stream's callbacks (`data` is the output).
    private static let events = StreamEvents {
        $0.state_changed = { data, _, state, error in
            guard let data else { return }
            Unmanaged<PipeWireOutput>.fromOpaque(data).takeUnretainedValue().stateChanged(to: state, error: error)
        }
        $0.process = { data in
            guard let data else { return }
            Unmanaged<PipeWireOutput>.fromOpaque(data).takeUnretainedValue().process()
        }
    }
}

extension PipeWireOutput {
    /// The raw audio a stream plays: interleaved frames of `channels` samples.
    struct Format {
        var spaFormat: UInt32
        var rate: Int
        var channels: Int
        var frameSize: Int
        /// Each channel's position (SPA_AUDIO_CHANNEL_*), or nil when some channel has none PipeWire knows.
        var positions: [UInt32]?
    }
}

/// The frames between the sink's ring buffer thread and the graph: a ring of bytes, whole frames only.
private final class FrameQueue {
    let frameSize: Int
    let capacity: Int
    private(set) var count = 0
    private var start = 0
    private var storage: UnsafeMutableRawBufferPointer

    init(frameSize: Int = 1, capacity: Int = 0) {
        self.frameSize = frameSize
        self.capacity = capacity
        storage = .allocate(byteCount: capacity * frameSize, alignment: 16)
    }

    deinit { storage.deallocate() }

    /// Appends the whole frames of `bytes`, at most `limit`; returns the bytes taken.
    func push(_ bytes: UnsafeRawBufferPointer, upTo limit: Int) -> Int {
        let frames = min(bytes.count / frameSize, limit, capacity - count)
        var done = 0
        while done < frames {
            let end = (start + count) % capacity
            let run = min(frames - done, capacity - end)
            storage.baseAddress!.advanced(by: end * frameSize).copyMemory(
                from: bytes.baseAddress!.advanced(by: done * frameSize), byteCount: run * frameSize)
            count += run
            done += run
        }
        return frames * frameSize
    }

    /// Moves up to `frames` frames to `destination`; returns how many.
    func pop(into destination: UnsafeMutableRawPointer, frames: Int) -> Int {
        let taken = min(frames, count)
        var done = 0
        while done < taken {
            let run = min(taken - done, capacity - start)
            (destination + done * frameSize).copyMemory(
                from: storage.baseAddress!.advanced(by: start * frameSize), byteCount: run * frameSize)
            start = (start + run) % capacity
            count -= run
            done += run
        }
        return taken
    }

    func removeAll() { (start, count) = (0, 0) }
}
