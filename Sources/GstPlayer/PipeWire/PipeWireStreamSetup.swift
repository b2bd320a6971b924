// yt-gst — a PipeWire stream made on a thread loop, and its table of callbacks, as `PipeWireOutput` and
// `PipeWireCycles` make theirs.
internal import CPipeWire

extension CPW_Library {
    /// A new stream on `loop` (its lock held) named `name`, with these properties, whose callbacks get `data`; nil
    /// where PipeWire refused it (errno says why).
    func stream(
        on loop: OpaquePointer, named name: String, properties: [(String, String)], events: StreamEvents,
        data: UnsafeMutableRawPointer
    ) -> OpaquePointer? {
        var library = self
        let made = CPW_properties(&library)
        for (key, value) in properties { _ = properties_set!(made, key, value) }
        return stream_new_simple!(thread_loop_get_loop!(loop), name, made, events.pointer, data)
    }
}

/// A stream's callbacks, made once and shared by every stream of a kind (each gets its own `data`); never changed
/// after it is made.
struct StreamEvents: @unchecked Sendable {
    let pointer: UnsafeMutablePointer<pw_stream_events>

    init(_ set: (inout pw_stream_events) -> Void) {
        pointer = .allocate(capacity: 1)
        var events = pw_stream_events()
        events.version = UInt32(PW_VERSION_STREAM_EVENTS)
        set(&events)
        pointer.initialize(to: events)
    }
}
