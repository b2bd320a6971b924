// yt-gst — when a PipeWire graph's cycles start, watched from the graph itself: what pipewire-pulse's streams do not
// tell their clients.
internal import CPipeWire
import Glibc
import Synchronization

/// The cycles of the PipeWire graph that plays one sink, each one's start on the kernel's CLOCK_MONOTONIC: a capture
/// stream of the sink's monitor (passive: it keeps nothing running, and takes the sink's format as it is), whose
/// timing PipeWire stamps at every cycle's start (`pw_time.now`, the graph driver's time, the same for every node
/// of the graph).
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
    /// The newest cycles seen (at most `kept`): each one's start (ns) and the graph's position then (ticks).
    private let cycles = Mutex<[(start: Int64, ticks: UInt64)]>([])
    private static let kept = 64
    /// How many cycles beyond the newest seen a start is projected (the watch's thread may not have run yet for the
    /// cycle under way); further than that, the graph has stopped or the watch fell behind.
    private static let projectedLimit = 4.0

    /// Starts watching the graph of `sink` (a node.name; nil: the default sink); nil where libpipewire or a
    /// PipeWire server is missing.
    public init?(sink: String?) {
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
            properties: [
                ("media.type", "Audio"), ("media.category", "Capture"), ("node.name", "yt-gst-cycles"),
                ("stream.capture.sink", "true"), ("node.passive", "true"),
            ] + (sink.map { [("target.object", $0)] } ?? []), events: Self.events,
            data: Unmanaged.passUnretained(self).toOpaque())
        var podBuffer = [UInt8](repeating: 0, count: 256)
        let connected = podBuffer.withUnsafeMutableBufferPointer { bytes -> Bool in
            guard let stream else { return false }
            var parameter = CPW_audio_format(
                bytes.baseAddress, UInt32(bytes.count), SPA_AUDIO_FORMAT_F32_LE.rawValue, 0, 0, nil)
            return library.stream_connect!(
                stream, SPA_DIRECTION_INPUT, UInt32.max, PW_STREAM_FLAG_AUTOCONNECT, &parameter, 1) >= 0
        }
        guard connected else { return nil }
    }

    deinit { stop() }

    /// Ends the watch (also where `init` failed after making the loop); once ended, it knows no new cycles. Why its
    /// owner calls it, not only `deinit`: the loop's thread holds the watch while it passes it a cycle, and the last
    /// release there would stop the loop from its own thread.
    public func stop() {
        guard let loop else { return }
        self.loop = nil
        library.thread_loop_lock!(loop)
        if let stream {
            _ = library.stream_disconnect!(stream)
            library.stream_destroy!(stream)
            self.stream = nil
        }
        library.thread_loop_unlock!(loop)
        library.thread_loop_stop!(loop)
        library.thread_loop_destroy!(loop)
    }

    /// The start (ns, kernel's CLOCK_MONOTONIC) of the last cycle that began at or before `time`, and the time from
    /// the one before it; nil before two cycles were seen, or when `time` lies more than a few cycles beyond the
    /// newest.
    public func cycle(atOrBefore time: Int64) -> (start: Int64, period: Int64)? {
        let seen = cycles.withLock { $0 }
        guard seen.count >= 2, let newest = seen.last, let oldest = seen.first else { return nil }
        guard time >= newest.start else {
            guard let index = seen.lastIndex(where: { $0.start <= time }), index > 0 else { return nil }
            return (seen[index].start, seen[index].start - seen[index - 1].start)
        }
        let previous = seen[seen.count - 2]
        guard newest.ticks > oldest.ticks, newest.ticks > previous.ticks else { return nil }
        let nanosecondsPerTick = Double(newest.start - oldest.start) / Double(newest.ticks - oldest.ticks)
        let period = Double(newest.ticks - previous.ticks) * nanosecondsPerTick
        let later = (Double(time - newest.start) / period).rounded(.down)
        guard later <= Self.projectedLimit else { return nil }
        return (newest.start + Int64(later * period), Int64(period))
    }

    /// A cycle of the graph (the loop's thread): its buffer given back at once, its start kept.
    private func process() {
        guard let stream else { return }
        if let buffer = library.stream_dequeue_buffer!(stream) { _ = library.stream_queue_buffer!(stream, buffer) }
        var time = pw_time()
        guard library.stream_get_time_n!(stream, &time, MemoryLayout<pw_time>.size) == 0, time.now > 0 else { return }
        cycles.withLock { seen in
            if let newest = seen.last, newest.start >= time.now { return }
            seen.append((time.now, time.ticks))
            if seen.count > Self.kept { seen.removeFirst(seen.count - Self.kept) }
        }
    }

    /// The stream's callbacks (`data` is the watch).
    private static let events = StreamEvents {
        $0.process = { data in
            guard let data else { return }
            Unmanaged<PipeWireCycles>.fromOpaque(data).takeUnretainedValue().process()
        }
    }
}
