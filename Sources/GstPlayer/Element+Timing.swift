// yt-gst — changing when buffers play: new timestamps on a pad, and an audio sink whose output follows a clock.
internal import CGStreamer
import Synchronization

extension Element {
    /// Which of a buffer's timestamps `retime(onPad:stamp:_:)` sets.
    public enum Stamp: Sendable {
        /// When it is to be presented (PTS).
        case presentation
        /// When it arrived, as a jitter buffer reads it (DTS), and when it is to be presented: for a packet read
        /// late from a socket it waited on, the time it would have arrived in time.
        case arrival
    }

    /// Gives every buffer that passes the pad of this name the timestamp `newTimestamp` returns for it (nil:
    /// leave it), from now on. The closure sees the buffer's first bytes (up to 16: an RTP header's fixed part).
    ///
    /// - Returns: false when the element has no such pad.
    /// - Note: `newTimestamp` runs on the streaming thread for every buffer: it must be quick and never block.
    /// The corresponding C function is `gst_pad_add_probe` with `GST_PAD_PROBE_TYPE_BUFFER`.
    @discardableResult
    public func retime(
        onPad padName: String, stamp: Stamp = .presentation,
        _ newTimestamp: @escaping @Sendable (UnsafeRawBufferPointer) -> ClockTime?
    )
        -> Bool
    {
        let context: Retiming = (stamp, newTimestamp)
        return addProbe(onPad: padName, type: GST_PAD_PROBE_TYPE_BUFFER, context: context) { _, info, context in
            guard let info, let context, let buffer = gst_pad_probe_info_get_buffer(info) else {
                return GST_PAD_PROBE_OK
            }
            let (stamp, newTimestamp) = ProbeContext<Retiming>.value(at: context)
            var head: (UInt64, UInt64) = (0, 0)
            let count = withUnsafeMutableBytes(of: &head) { gst_buffer_extract(buffer, 0, $0.baseAddress, 16) }
            guard
                let time = withUnsafeBytes(
                    of: head, { newTimestamp(UnsafeRawBufferPointer(rebasing: $0[..<Int(count)])) })
            else { return GST_PAD_PROBE_OK }
            let writable = CGst_probe_writable_buffer(info)
            CGst_buffer_set_pts(writable, time.raw)
            if stamp == .arrival { CGst_buffer_set_dts(writable, time.raw) }
            return GST_PAD_PROBE_OK
        }
    }

    /// What one `retime(onPad:stamp:_:)` probe holds.
    private typealias Retiming = (stamp: Stamp, newTimestamp: @Sendable (UnsafeRawBufferPointer) -> ClockTime?)

    /// Whether this element is an audio sink with a ring buffer (`pulsesink`, `alsasink`, ...): one that can follow
    /// the pipeline clock sample by sample (`follow(_:)`).
    ///
    /// The corresponding C type is `GstAudioBaseSink`.
    public var isAudioBaseSink: Bool { CGst_is_audio_base_sink(raw) != 0 }

    /// Whether this element plays to a sound device or server: an audio base sink, or `pipewiresink` (no ring
    /// buffer: it hands each buffer to its PipeWire stream).
    public var isAudioOutput: Bool { isAudioBaseSink || factoryName == "pipewiresink" }

    /// Starts this audio sink's output now, before its first sample, where it has opened its device (PAUSED or
    /// later): the device plays silence until samples come, and the sink's clock runs from here. An audio sink
    /// otherwise starts its output with the first sample it renders, and calibrates its clock just before.
    ///
    /// - Returns: whether the output runs (false on other elements, or before the sink opened its device).
    /// The corresponding C function is `gst_audio_ring_buffer_start`.
    @discardableResult
    public func startOutput() -> Bool {
        isAudioBaseSink && CGst_audio_base_sink_start_ring_buffer(CGst_audio_base_sink(raw)) != 0
    }

    /// Hands the slaving of this audio sink's output to the pipeline clock over to `slaving` (`slave-method=custom`):
    /// as the sink plays, `slaving` compares the device's clock with the pipeline's and says how far to move the
    /// output. Does nothing on other elements (see `isAudioBaseSink`).
    ///
    /// - Note: the sink calls `slaving` on its streaming thread, for every buffer it renders.
    /// The corresponding C function is `gst_audio_base_sink_set_custom_slaving_callback`.
    public func follow(_ slaving: any OutputSlaving) {
        guard isAudioBaseSink else { return }
        try? set("slave-method", to: SlaveMethod.custom)
        let box = SlavingBox(slaving)
        // The buffer the sink renders when it calls the callback: the last one that reached its pad.
        _ = addProbe(onPad: "sink", type: GST_PAD_PROBE_TYPE_BUFFER, context: box) { _, info, context in
            guard let info, let context, let buffer = gst_pad_probe_info_get_buffer(info) else {
                return GST_PAD_PROBE_OK
            }
            ProbeContext<SlavingBox>.value(at: context).presentationTime.store(
                CGst_buffer_pts(buffer), ordering: .relaxed)
            return GST_PAD_PROBE_OK
        }
        gst_audio_base_sink_set_custom_slaving_callback(
            CGst_audio_base_sink(raw),
            { sink, pipelineTime, deviceTime, requestedSkew, reason, context in
                guard let sink, let context else { return }
                let box = Unmanaged<SlavingBox>.fromOpaque(context).takeUnretainedValue()
                guard let requestedSkew else {
                    box.slaving.discontinuity(OutputDiscontinuity(reason))
                    return
                }
                let presentationTime = box.presentationTime.load(ordering: .relaxed)
                requestedSkew.pointee = GstClockTimeDiff(
                    box.slaving.correction(
                        pipelineTime: Int64(pipelineTime), deviceTime: Int64(deviceTime),
                        placementLead: CGst_audio_base_sink_placement_lead(sink, presentationTime),
                        sampleRate: Int(CGst_audio_base_sink_rate(sink))))
            }, Unmanaged.passRetained(box).toOpaque(),
            { context in
                guard let context else { return }
                Unmanaged<SlavingBox>.fromOpaque(context).release()
            })
    }
}

/// The slaving of one `follow(_:)` callback, owned by the sink (and by its pad's probe), and the presentation time
/// of the buffer the sink renders, which the probe sets and the callback reads (both on the streaming thread).
private final class SlavingBox: Sendable {
    let slaving: any OutputSlaving
    let presentationTime = Atomic<GstClockTime>(GstClockTime.max)
    init(_ slaving: any OutputSlaving) { self.slaving = slaving }
}

/// Decides how an audio sink's output follows the pipeline clock (see `Element.follow(_:)`).
public protocol OutputSlaving: AnyObject, Sendable {
    /// One observation as the sink renders: the pipeline clock's and the device clock's time (ns), each counted
    /// from the same calibration point, so that a device exactly on time reads what the pipeline reads; and how
    /// much earlier than its time (ns, less than a sample) the sink places the buffer it renders, as it puts each
    /// buffer on a whole sample of its device (what the device clock does not show).
    ///
    /// - Returns: how far (ns) to move the output: positive plays the following samples later, negative earlier;
    ///   0 leaves it. Runs on the sink's streaming thread: quick, never blocking.
    func correction(pipelineTime: Int64, deviceTime: Int64, placementLead: Double, sampleRate: Int) -> Int64

    /// The sink's timing started over (playback started, a flush, new caps, or it realigned its samples).
    func discontinuity(_ reason: OutputDiscontinuity)
}

/// Why an audio sink's timing started over.
public enum OutputDiscontinuity: Sendable, Equatable {
    /// Playback (re)started: the device clock is calibrated anew.
    case started
    /// A flush or new caps: the stream starts over.
    case restarted
    /// The sink realigned its samples to their timestamps (it does so after every correction).
    case realigned
    /// The device failed and was reopened.
    case deviceFailed

    init(_ reason: GstAudioBaseSinkDiscontReason) {
        switch reason {
        case GST_AUDIO_BASE_SINK_DISCONT_REASON_SYNC_LATENCY: self = .started
        case GST_AUDIO_BASE_SINK_DISCONT_REASON_ALIGNMENT: self = .realigned
        case GST_AUDIO_BASE_SINK_DISCONT_REASON_DEVICE_FAILURE: self = .deviceFailed
        default: self = .restarted
        }
    }
}

/// The `slave-method` an audio sink is given (GstAudioBaseSinkSlaveMethod): only the one GstPlayer uses.
private enum SlaveMethod: String, PropertyEnum {
    /// The sink asks a callback how far to move its output (`follow(_:)`).
    case custom
}
