// yt-gst — a pad probe with a Swift value as its context, kept alive exactly as long as the probe.
internal import CGStreamer

/// What a probe's C callback is given: a value, retained by the probe and released with it.
final class ProbeContext<Value: Sendable>: Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }

    /// The value behind a probe callback's context pointer.
    static func value(at context: UnsafeMutableRawPointer) -> Value {
        Unmanaged<ProbeContext>.fromOpaque(context).takeUnretainedValue().value
    }
}

extension Element {
    /// Adds `callback` as a probe of `type` on the pad of this name, from now on, with `context` for it to read
    /// (`ProbeContext<Value>.value(at:)`); the probe stays for the pad's lifetime and releases the value with it.
    ///
    /// - Returns: false when the element has no such pad.
    /// The corresponding C function is `gst_pad_add_probe`.
    func addProbe<Value: Sendable>(
        onPad padName: String, type: GstPadProbeType, context: Value, _ callback: GstPadProbeCallback
    ) -> Bool {
        guard let pad = gst_element_get_static_pad(raw, padName) else { return false }
        defer { gst_object_unref(UnsafeMutableRawPointer(pad)) }
        gst_pad_add_probe(
            pad, type, callback, Unmanaged.passRetained(ProbeContext(context)).toOpaque(),
            { context in
                guard let context else { return }
                Unmanaged<AnyObject>.fromOpaque(context).release()
            })
        return true
    }
}
