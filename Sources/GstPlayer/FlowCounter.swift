// yt-gst — counting the buffers that pass a pad: how much arrived, how long it plays, whether data still flows.
internal import CGStreamer
import Synchronization

/// What has passed one pad so far: buffers, bytes, and the stream time they cover.
///
/// Updated from the streaming thread by a pad probe, read from any thread.
public final class FlowCounter: Sendable {
    private let counts = Mutex(Snapshot())

    /// The counts at one moment.
    public struct Snapshot: Sendable, Equatable {
        /// How many buffers passed (each buffer of a buffer list counts).
        public var buffers = 0
        /// How many bytes those buffers held.
        public var bytes = 0
        /// Sum of the buffers' durations (the audio that passed, for raw audio).
        public var duration = ClockTime.zero

        /// Nothing counted yet.
        public init() {}
    }

    /// A counter at zero; `Element.countFlow(onPad:)` makes the ones that count.
    public init() {}

    /// The counts now, all three taken together (no buffer is half counted).
    public var snapshot: Snapshot { counts.withLock { $0 } }

    /// Adds one buffer; its duration is the buffer's own or, for raw audio without one, its size in time.
    func add(_ buffer: UnsafeMutablePointer<GstBuffer>, bytesPerSecond: Int?) {
        let bytes = Int(gst_buffer_get_size(buffer))
        var duration: UInt64? = nil
        if CGst_buffer_duration(buffer) != CGst_clock_time_none() {
            duration = UInt64(CGst_buffer_duration(buffer))
        } else if let bytesPerSecond {
            duration = UInt64(bytes) * 1_000_000_000 / UInt64(bytesPerSecond)
        }
        counts.withLock {
            $0.buffers += 1
            $0.bytes += bytes
            if let duration { $0.duration.nanoseconds += duration }
        }
    }
}

extension Element {
    /// Counts every buffer that passes the pad of this name, from now on.
    ///
    /// - Returns: the counter, or nil when the element has no such pad.
    /// - Note: the probe stays for the pad's lifetime and releases the counter with it.
    /// The corresponding C function is `gst_pad_add_probe` with `GST_PAD_PROBE_TYPE_BUFFER`.
    public func countFlow(onPad padName: String) -> FlowCounter? {
        let counter = FlowCounter()
        let types = GstPadProbeType(
            rawValue: GST_PAD_PROBE_TYPE_BUFFER.rawValue | GST_PAD_PROBE_TYPE_BUFFER_LIST.rawValue)
        let added = addProbe(onPad: padName, type: types, context: counter) { pad, info, context in
            guard let pad, let info, let context else { return GST_PAD_PROBE_OK }
            let counter = ProbeContext<FlowCounter>.value(at: context)
            let bytesPerSecond = Element.rawAudioBytesPerSecond(pad)
            if let buffer = gst_pad_probe_info_get_buffer(info) {
                counter.add(buffer, bytesPerSecond: bytesPerSecond)
            } else if let list = gst_pad_probe_info_get_buffer_list(info) {
                for index in 0..<gst_buffer_list_length(list) {
                    guard let buffer = gst_buffer_list_get(list, index) else { continue }
                    counter.add(buffer, bytesPerSecond: bytesPerSecond)
                }
            }
            return GST_PAD_PROBE_OK
        }
        return added ? counter : nil
    }

    /// Bytes per second of the raw audio on the pad (from its current caps), or nil for anything else.
    static func rawAudioBytesPerSecond(_ pad: UnsafeMutablePointer<GstPad>) -> Int? {
        guard let caps = gst_pad_get_current_caps(pad) else { return nil }
        defer { gst_caps_unref(caps) }
        var info = GstAudioInfo()
        guard gst_audio_info_from_caps(&info, caps) != 0, info.bpf > 0, info.rate > 0 else { return nil }
        return Int(info.bpf) * Int(info.rate)
    }
}
