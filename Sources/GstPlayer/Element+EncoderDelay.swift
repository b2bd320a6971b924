// yt-gst — an audio encoder's packets stamped where a decoder that knows nothing of the codec's delay plays them.
internal import CGStreamer
import Synchronization

extension Element {
    /// Stamps the packets that leave this audio encoder where a decoder without a pre-skip plays them, from now on.
    ///
    /// An encoder with a delay (Opus: 312 samples, 6.5 ms) marks its first packet with the delay to clip from the
    /// decoded start (a clipping meta: Ogg Opus's pre-skip) and stamps every packet as decoded after that clip: the
    /// first at the first input sample, short by the delay, the next a delay before the first decodes to its end.
    /// RTP and GDP carry no clipping: a receiver decodes the first packet whole and the second, placed inside it,
    /// plays over its last delay of audio (measured with Opus over RTP: the file's first 13.5 ms garbled, the
    /// sound heard from 2.6 ms into it). Here a clipped packet keeps its timestamp with its whole duration and every
    /// packet after it is stamped that much later: the audio plays whole, the codec's delay later than its input.
    ///
    /// - Returns: false when the element has no `src` pad.
    /// - Note: the probe runs on the streaming thread for every buffer: quick, never blocking.
    /// The corresponding C functions are `gst_pad_add_probe` and `gst_buffer_get_audio_clipping_meta`.
    @discardableResult
    public func stampPacketsWhole() -> Bool {
        addProbe(onPad: "src", type: GST_PAD_PROBE_TYPE_BUFFER, context: EncoderDelay()) {
            pad, info, context in
            guard let pad, let info, let context, let buffer = gst_pad_probe_info_get_buffer(info),
                CGst_buffer_pts(buffer) != CGst_clock_time_none()
            else { return GST_PAD_PROBE_OK }
            let delay = ProbeContext<EncoderDelay>.value(at: context)
            if let clipped = Element.clippedStart(of: buffer, on: pad) {
                delay.nanoseconds.store(clipped, ordering: .relaxed)
                let duration = CGst_buffer_duration(buffer)
                if duration != CGst_clock_time_none() {
                    CGst_buffer_set_duration(CGst_probe_writable_buffer(info), duration + clipped)
                }
            } else if case let shift = delay.nanoseconds.load(ordering: .relaxed), shift > 0 {
                CGst_buffer_set_pts(CGst_probe_writable_buffer(info), CGst_buffer_pts(buffer) + shift)
            }
            return GST_PAD_PROBE_OK
        }
    }

    /// How much audio (ns) the buffer's clipping meta takes off its decoded start; nil without one (or at 0).
    private static func clippedStart(
        of buffer: UnsafeMutablePointer<GstBuffer>, on pad: UnsafeMutablePointer<GstPad>
    ) -> GstClockTime? {
        guard let meta = CGst_buffer_audio_clipping_meta(buffer), meta.pointee.start > 0 else { return nil }
        if meta.pointee.format == GST_FORMAT_TIME { return meta.pointee.start }
        guard meta.pointee.format == GST_FORMAT_DEFAULT, let caps = gst_pad_get_current_caps(pad) else { return nil }
        defer { gst_caps_unref(caps) }
        var rate: gint = 0
        guard gst_structure_get_int(gst_caps_get_structure(caps, 0), "rate", &rate) != 0, rate > 0 else { return nil }
        return gst_util_uint64_scale_int(meta.pointee.start, Int32(CGst_second()), rate)
    }
}

/// The clip of the last clipped packet (ns): how much later than stamped every packet after it plays.
private final class EncoderDelay: Sendable {
    let nanoseconds = Atomic<GstClockTime>(0)
}
