// yt-gst — when a PipeWire graph's cycles start, watched from the graph itself: what pipewire-pulse's streams do not
// tell their clients.
internal import CPipeWire
import Glibc
import Synchronization

/// The cycles of the PipeWire graph that plays one sink, each one's start on the kernel's CLOCK_MONOTONIC: a stream
/// on the sink (it takes the sink's format as it is), whose timing PipeWire
/// stamps at every cycle's start (`pw_time.now`, the graph driver's time, the same for every node of the graph),
/// with the graph's position then (`ticks`), and the delay from a playback stream to the device.
///
/// Why: pipewire-pulse moves a stream's position once a cycle, at its start, but a client sees it move only once the
/// server's main loop has taken it over from its data thread, after the streams processed before it: measured in the
/// multi-room lab, later by an amount of its own for each stream, and three rooms placed by when their positions
/// were seen to move were held up to 36 µs apart (steady p99 62-83 µs). The start of the cycle in which a position
/// was seen to move is the same instant for every stream.
public final class PipeWireCycles: @unchecked Sendable {
    private var library = CPW_Library()
    private var loop: OpaquePointer?
    private var stream: OpaquePointer?
    /// The graph's position area (the driver's clock, with each cycle's length), as the stream was given it; used on
    /// the loop's thread only.
    private var position: UnsafeMutablePointer<spa_io_position>?
    /// The node whose state is followed (`init`'s `node`), on the watch's own connection.
    private var nodeWatch: UnsafeMutablePointer<CPW_NodeWatch>?
    private let cycles = Mutex(GraphCycles())
    /// The newest delay from a cycle to the device (ns; a playback watch's: what the sink and what follows it hold).
    private let newestDelay = Atomic<Int64>(0)
    /// The graph's rate (ticks a second), 0 until the first cycle.
    private let newestRate = Atomic<Int>(0)

    /// How the watch joins the sink's graph.
    public enum Side: Sendable {
        /// A capture of the sink's monitor, after the sink in each cycle; passive: it keeps nothing running.
        case monitor
        /// A silent playback stream to the sink, which also says the delay from a cycle to the device, as any
        /// other stream that plays to the sink; it starts the sink's graph (for a player's own output, which is
        /// to play there: its first audio is placed on cycles already known).
        case playback
    }
    private let side: Side

    /// Starts watching the graph of `sink` (a node.name or object serial; nil: the default sink) from `side`, and
    /// following the state of the node named `node`, if one is named; nil where libpipewire or a PipeWire server is
    /// missing.
    public init?(sink: String?, side: Side = .monitor, following node: String? = nil) {
        self.side = side
        guard case .success(let loaded) = PipeWireOutput.loaded,
            let loop = loaded.functions.thread_loop_new!("yt-gst cycles", nil)
        else { return nil }
        library = loaded.functions
        self.loop = loop
        guard library.thread_loop_start!(loop) == 0 else { return nil }
        library.thread_loop_lock!(loop)
        defer { library.thread_loop_unlock!(loop) }
        stream = library.stream(
            on: loop, named: "yt-gst cycles",
            properties: [("media.type", "Audio"), ("node.name", "yt-gst-cycles")]
                + (side == .monitor
                    ? [("media.category", "Capture"), ("stream.capture.sink", "true"), ("node.passive", "true")]
                    : [("media.category", "Playback")]) + (sink.map { [("target.object", $0)] } ?? []),
            events: Self.events,
            data: Unmanaged.passUnretained(self).toOpaque())
        var podBuffer = [UInt8](repeating: 0, count: 256)
        let connected = podBuffer.withUnsafeMutableBufferPointer { bytes -> Bool in
            guard let stream else { return false }
            var parameter = CPW_audio_format(
                bytes.baseAddress, UInt32(bytes.count), SPA_AUDIO_FORMAT_F32_LE.rawValue, 0, 0, nil)
            return library.stream_connect!(
                stream, side == .monitor ? SPA_DIRECTION_INPUT : SPA_DIRECTION_OUTPUT, UInt32.max,
                PW_STREAM_FLAG_AUTOCONNECT, &parameter, 1) >= 0
        }
        guard connected else { return nil }
        if let node, let stream, let core = library.stream_get_core!(stream) {
            let watch = UnsafeMutablePointer<CPW_NodeWatch>.allocate(capacity: 1)
            if CPW_node_watch_start(watch, &library, core, node) {
                nodeWatch = watch
            } else {
                watch.deallocate()
            }
        }
    }

    deinit { stop() }

    /// Ends the watch (also where `init` failed after making the loop); once ended, it knows no new cycles. Why its
    /// owner calls it, not only `deinit`: the loop's thread holds the watch while it passes it a cycle, and the last
    /// release there would stop the loop from its own thread.
    public func stop() {
        guard let loop else { return }
        self.loop = nil
        library.thread_loop_lock!(loop)
        if let nodeWatch { CPW_node_watch_stop(nodeWatch) }
        if let stream {
            _ = library.stream_disconnect!(stream)
            library.stream_destroy!(stream)
            self.stream = nil
        }
        library.thread_loop_unlock!(loop)
        library.thread_loop_stop!(loop)
        library.thread_loop_destroy!(loop)
        nodeWatch?.deallocate()
        nodeWatch = nil
    }

    /// The last cycle that began at or before `time` (ns, kernel's CLOCK_MONOTONIC); see `GraphCycles`.
    public func cycle(atOrBefore time: Int64) -> GraphCycles.Cycle? { cycles.withLock { $0.cycle(atOrBefore: time) } }

    /// When the graph reaches position `ticks` (ns, kernel's CLOCK_MONOTONIC); see `GraphCycles`.
    public func time(ofTicks ticks: Double) -> Double? { cycles.withLock { $0.time(ofTicks: ticks) } }

    /// The delay from a cycle to the device (ns) at the newest cycle: for a `.playback` watch, how much later than
    /// its cycle a sample given to the graph is heard.
    public var delay: Int64 { newestDelay.load(ordering: .relaxed) }

    /// Whether the node followed (`init`'s `node`) runs: it is scheduled in the graph's cycles, and a client's
    /// stream has been told to play (false while the node is not seen); nil when no node is followed.
    public var nodeRunning: Bool? {
        nodeWatch.map { CPW_node_watch_state($0) == PW_NODE_STATE_RUNNING.rawValue }
    }

    /// The graph's rate (ticks a second: the samples a cycle plays at the graph's rate); 0 before the first cycle.
    public var rate: Int { newestRate.load(ordering: .relaxed) }

    /// A cycle of the graph (the loop's thread): its start kept.
    private func process() {
        guard let stream else { return }
        // A capture's buffer goes back at once; a playback watch gives the graph nothing (silence).
        if side == .monitor, let buffer = library.stream_dequeue_buffer!(stream) {
            _ = library.stream_queue_buffer!(stream, buffer)
        }
        var time = pw_time()
        guard library.stream_get_time_n!(stream, &time, MemoryLayout<pw_time>.size) == 0, time.now > 0,
            let length = position?.pointee.clock.duration
        else { return }
        if time.rate.denom > 0 {
            newestRate.store(Int(time.rate.denom / max(time.rate.num, 1)), ordering: .relaxed)
            newestDelay.store(
                time.delay * 1_000_000_000 * Int64(time.rate.num) / Int64(time.rate.denom), ordering: .relaxed)
        }
        let ticksPerSecond = time.rate.num > 0 ? Double(time.rate.denom) / Double(time.rate.num) : 0
        cycles.withLock { $0.add(start: time.now, ticks: time.ticks, length: length, ticksPerSecond: ticksPerSecond) }
    }

    /// The stream's callbacks (`data` is the watch).
    private static let events = StreamEvents {
        $0.io_changed = { data, id, area, _ in
            guard let data, id == SPA_IO_Position.rawValue else { return }
            Unmanaged<PipeWireCycles>.fromOpaque(data).takeUnretainedValue().position =
                area?.assumingMemoryBound(to: spa_io_position.self)
        }
        $0.process = { data in
            guard let data else { return }
            Unmanaged<PipeWireCycles>.fromOpaque(data).takeUnretainedValue().process()
        }
    }
}
