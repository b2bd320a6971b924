// yt-gst — a volume element's gain that moves along a short ramp, sample by sample: no click when it changes.
internal import CGStreamer
import Synchronization

/// The gain of a `volume` element, moved to each new value along a linear ramp that starts with the next buffer to
/// reach the element, instead of in one step (a step in the gain of a sounding signal is a click).
///
/// GStreamer's controller does the work: an interpolation control source bound to the element's `volume`, which
/// the element reads for every sample at the buffer's stream time. A probe on the element's sink pad places the
/// ramp: when a new gain waits, it reads the buffer's stream time and draws the curve from the gain there to the
/// new one `length` later; when the stream time went back before the last ramp (a seek), it makes the curve flat at
/// the gain that ramp went to. Only that streaming thread changes the curve once it runs, so the element never
/// reads a half-drawn one. At gain 1 the element multiplies every sample by 1: integer and float samples pass
/// unchanged.
/// The corresponding C types are `GstInterpolationControlSource` and `GstDirectControlBinding`.
public final class VolumeRamp: Sendable {
    /// How long each change takes: long enough that no step is heard, short enough to feel at once.
    public static let length: Duration = .milliseconds(25)
    private let curve: GainCurve

    /// Binds `element`'s `volume` to a curve that starts at `gain` (linear, 0 to the element's maximum).
    ///
    /// - Throws: `.notFound` when the element has no `volume` property or no sink pad.
    public init(on element: Element, gain: Double) throws(GstError) {
        _ = try element.requireProperty("volume")
        curve = GainCurve(gain: gain, length: ClockTime(VolumeRamp.length).nanoseconds)
        let binding = gst_direct_control_binding_new_absolute(CGst_object(element.raw), "volume", curve.controlSource)
        guard let binding, gst_object_add_control_binding(CGst_object(element.raw), binding) != 0,
            element.addProbe(onPad: "sink", type: GST_PAD_PROBE_TYPE_BUFFER, context: curve, Self.placeRamp)
        else { throw GstError(kind: .notFound, message: "\(element.name) has no volume to ramp") }
    }

    /// Moves the gain to `gain` over the ramp's length, from the next buffer on (any thread).
    public func move(to gain: Double) { curve.pending.withLock { $0 = gain } }

    /// The probe: the curve at the stream time of the buffer about to pass, when it has to change.
    private static let placeRamp: GstPadProbeCallback = { pad, info, context in
        guard let pad, let info, let context, let buffer = gst_pad_probe_info_get_buffer(info) else {
            return GST_PAD_PROBE_OK
        }
        let curve = ProbeContext<GainCurve>.value(at: context)
        if curve.mayChange, let time = streamTime(of: buffer, at: pad) { curve.update(at: time) }
        return GST_PAD_PROBE_OK
    }

    /// The stream time of `buffer`'s start in the segment `pad` has (what the element reads the curve at).
    private static func streamTime(
        of buffer: UnsafeMutablePointer<GstBuffer>, at pad: UnsafeMutablePointer<GstPad>
    )
        -> GstClockTime?
    {
        let pts = CGst_buffer_pts(buffer)
        guard pts != CGst_clock_time_none(), let event = gst_pad_get_sticky_event(pad, GST_EVENT_SEGMENT, 0) else {
            return nil
        }
        defer { gst_event_unref(event) }
        var segment: UnsafePointer<GstSegment>?
        gst_event_parse_segment(event, &segment)
        guard let segment else { return nil }
        let time = gst_segment_to_stream_time(segment, GST_FORMAT_TIME, guint64(pts))
        return time == CGst_clock_time_none() ? nil : time
    }
}

/// The curve a `VolumeRamp` binds, and the gain waiting to be ramped to; owned by the ramp and by its probe.
///
/// - Note: `@unchecked Sendable`: `source` is an owned reference to a control source, which locks itself; after
///   `init` only the probe's streaming thread changes its points.
private final class GainCurve: @unchecked Sendable {
    let source: UnsafeMutablePointer<GstTimedValueControlSource>
    let length: GstClockTime
    /// The gain to ramp to from the next buffer; nil when none waits.
    let pending = Mutex<Double?>(nil)
    /// Where the last ramp starts (0: the curve is flat) and the gain it goes to; only the probe's thread uses them.
    private var rampStart: GstClockTime = 0
    private var target: Double

    init(gain: Double, length: UInt64) {
        target = gain
        let made = gst_interpolation_control_source_new()!
        _ = gst_object_ref_sink(UnsafeMutableRawPointer(made))
        source = CGst_timed_value_control_source(made)
        self.length = GstClockTime(length)
        gst_util_set_object_arg(CGst_gobject(source), "mode", "linear")
        _ = gst_timed_value_control_source_set(source, 0, gain)
    }

    deinit { gst_object_unref(UnsafeMutableRawPointer(source)) }

    var controlSource: UnsafeMutablePointer<GstControlSource> { CGst_control_source(source) }

    /// Whether the next buffer may need the curve changed: a gain waits, or a ramp was drawn.
    var mayChange: Bool { rampStart > 0 || pending.withLock { $0 != nil } }

    /// For a buffer at stream time `time`: the ramp to a waiting gain from there, or a flat curve at the last
    /// ramp's gain when the stream went back before that ramp (its gain is what the listener last asked for).
    func update(at time: GstClockTime) {
        let waiting = pending.withLock { gain in
            defer { gain = nil }
            return gain
        }
        if let waiting {
            ramp(at: time, to: waiting)
        } else if time < rampStart {
            gst_timed_value_control_source_unset_all(source)
            _ = gst_timed_value_control_source_set(source, 0, target)
            rampStart = 0
        }
    }

    /// From `time` on: the gain the curve has there, then a straight line to `gain` over `length`. Every stream
    /// time keeps a value (the element fails on a time without one): a point at 0 holds the gain before `time`.
    private func ramp(at time: GstClockTime, to gain: Double) {
        var now: gdouble = gain
        _ = gst_control_source_get_value(controlSource, time, &now)
        gst_timed_value_control_source_unset_all(source)
        _ = gst_timed_value_control_source_set(source, 0, now)
        _ = gst_timed_value_control_source_set(source, time, now)
        _ = gst_timed_value_control_source_set(source, time + length, gain)
        rampStart = max(time, 1)
        target = gain
    }
}
