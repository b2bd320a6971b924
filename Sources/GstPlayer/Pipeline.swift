// yt-gst — a pipeline built from a gst-launch string: state, bus, queries, seeking.
internal import CGStreamer

/// A GStreamer pipeline parsed from launch syntax ("appsrc name=src ! audioconvert ! autoaudiosink").
///
/// Releasing it sets it to NULL first, so every thread, device and socket it used is let go.
/// - Note: `@unchecked Sendable`: `raw` and `bus` are owned (+1) references used only through GStreamer's
///   thread-safe API (state changes, queries, bus pop/post); this type has no other mutable state.
/// The corresponding C type is `GstPipeline`.
public final class Pipeline: @unchecked Sendable {
    let raw: UnsafeMutablePointer<GstElement>
    let bus: UnsafeMutablePointer<GstBus>

    /// Parses a launch string.
    ///
    /// - Throws: `.missingElement` naming the element when one is not installed, `.parse` for any other problem.
    ///   A string that parses *with* an error is a failure, as it is for gst-launch.
    /// The corresponding C function is `gst_parse_launch_full`.
    public init(launch description: String) throws(GstError) {
        Gst.initialize()
        var error: UnsafeMutablePointer<GError>?
        let parsed = gst_parse_launch_full(description, nil, GST_PARSE_FLAG_FATAL_ERRORS, &error)
        guard let parsed else { throw Pipeline.parseError(taking: error) }
        _ = gst_object_ref_sink(UnsafeMutableRawPointer(parsed))  // floating → owned, before any early exit
        if let error {
            gst_object_unref(UnsafeMutableRawPointer(parsed))
            throw Pipeline.parseError(taking: error)
        }
        raw = Pipeline.wrapInPipeline(parsed)
        bus = gst_element_get_bus(raw)!
    }

    deinit {
        gst_element_set_state(raw, GST_STATE_NULL)
        gst_object_unref(UnsafeMutableRawPointer(bus))
        gst_object_unref(UnsafeMutableRawPointer(raw))
    }

    /// A launch string of one element (or one bin) parses to that element; playing it needs a pipeline around it.
    ///
    /// Takes the caller's (sunk) reference to `element` and returns an owned reference to a pipeline.
    private static func wrapInPipeline(_ element: UnsafeMutablePointer<GstElement>) -> UnsafeMutablePointer<GstElement>
    {
        if g_type_check_instance_is_a(
            UnsafeMutableRawPointer(element).assumingMemoryBound(to: GTypeInstance.self), gst_pipeline_get_type()) != 0
        {
            return element
        }
        let pipeline = gst_pipeline_new(nil)!
        _ = gst_object_ref_sink(UnsafeMutableRawPointer(pipeline))
        // The element is no longer floating, so the bin adds a reference of its own (it sinks only floating ones):
        // ours is dropped, and the pipeline holds the only one. A parsed element has no parent and the new pipeline
        // no children, so the add cannot fail.
        let added = gst_bin_add(CGst_bin(pipeline), element)
        gst_object_unref(UnsafeMutableRawPointer(element))
        assert(added != 0, "a freshly parsed element could not be added to a new pipeline")
        return pipeline
    }

    /// The error of a failed parse: `.missingElement` when GStreamer says an element does not exist (the
    /// `GST_PARSE_ERROR` domain, code `NO_SUCH_ELEMENT`), `.parse` otherwise. Classified by the GError's domain
    /// quark and code, never by its text.
    static func parseError(taking error: UnsafeMutablePointer<GError>?) -> GstError {
        let missing =
            error.map {
                $0.pointee.domain == gst_parse_error_quark()
                    && $0.pointee.code == gint(GST_PARSE_ERROR_NO_SUCH_ELEMENT.rawValue)
            } ?? false
        return GstError(kind: missing ? .missingElement : .parse, taking: error)
    }

    // MARK: Elements

    /// The element of this name anywhere in the pipeline.
    ///
    /// The corresponding C function is `gst_bin_get_by_name` (which searches nested bins too).
    public func element(named name: String) throws(GstError) -> Element {
        guard let found = gst_bin_get_by_name(CGst_bin(raw), name) else {
            throw GstError(kind: .notFound, message: "the pipeline has no element named \"\(name)\"")
        }
        return Element(owning: found)
    }

    /// The appsrc of this name, which the pipeline must contain.
    ///
    /// - Throws: `.missingAppElement` when there is no element of this name, or it is not an appsrc.
    /// The corresponding C function is `gst_bin_get_by_name`.
    public func appSource(named name: String) throws(GstError) -> AppSource {
        AppSource(owning: try element(named: name, factory: "appsrc") { CGst_is_app_src($0) != 0 })
    }

    /// The appsink of this name, which the pipeline must contain.
    ///
    /// - Throws: `.missingAppElement` when there is no element of this name, or it is not an appsink.
    /// The corresponding C function is `gst_bin_get_by_name`.
    public func appSink(named name: String) throws(GstError) -> AppSink {
        AppSink(owning: try element(named: name, factory: "appsink") { CGst_is_app_sink($0) != 0 })
    }

    /// A new reference to the element `name`, which must be a `factory` (checked by `isKind`).
    private func element(
        named name: String, factory: String, isKind: (UnsafeMutablePointer<GstElement>) -> Bool
    ) throws(GstError) -> UnsafeMutablePointer<GstElement> {
        guard let found = gst_bin_get_by_name(CGst_bin(raw), name) else {
            throw GstError(
                kind: .missingAppElement, message: "the pipeline has no element \"\(factory) name=\(name)\"")
        }
        guard isKind(found) else {
            let element = Element(owning: found)
            throw GstError(
                kind: .missingAppElement,
                message: "element \"\(name)\" is a \(element.factoryName), not an \(factory)")
        }
        return found
    }

    /// The first element that controls stream volume (a `volume` element or a sink such as pulsesink), if any.
    ///
    /// The corresponding C function is `gst_bin_get_by_interface` with `GST_TYPE_STREAM_VOLUME`.
    public func volumeElement() -> Element? {
        if let named = gst_bin_get_by_name(CGst_bin(raw), "volume"), CGst_is_stream_volume(named) != 0 {
            return Element(owning: named)
        }
        return gst_bin_get_by_interface(CGst_bin(raw), CGst_stream_volume_type()).map { Element(owning: $0) }
    }

    // MARK: State

    /// Asks the pipeline to change state.
    ///
    /// - Returns: how it succeeded; `.async` means wait for `.asyncDone` on the bus.
    /// - Throws: `.stateChange` with the ERROR message the failing element posted, when there is one.
    /// The corresponding C function is `gst_element_set_state`.
    @discardableResult
    public func setState(_ state: State) throws(GstError) -> StateChangeSuccess {
        switch gst_element_set_state(raw, state.raw) {
        case GST_STATE_CHANGE_FAILURE:
            var error =
                takePostedError(timeout: .milliseconds(200))
                ?? GstError(kind: .stateChange, message: "the pipeline could not go to \(state)")
            error.kind = .stateChange
            throw error
        case GST_STATE_CHANGE_ASYNC: return .async
        case GST_STATE_CHANGE_NO_PREROLL: return .noPreroll
        default: return .success
        }
    }

    /// The current state, waiting up to `timeout` for a change under way to finish.
    ///
    /// The corresponding C function is `gst_element_get_state`.
    public func state(timeout: Duration = .zero) -> State {
        var current = GST_STATE_VOID_PENDING
        gst_element_get_state(raw, &current, nil, ClockTime(timeout).raw)
        return State(current)
    }

    /// Runs `body` with the pipeline PLAYING and sets it to NULL afterwards, however `body` ends.
    ///
    /// The corresponding C function is `gst_element_set_state`.
    public func withPlaying<R>(_ body: (Pipeline) throws -> R) throws -> R {
        try setState(.playing)
        defer { _ = try? setState(.null) }
        return try body(self)
    }

    // MARK: Queries and seeking

    /// The playback position, or nil when the pipeline cannot tell yet.
    ///
    /// The corresponding C function is `gst_element_query_position`.
    public var position: ClockTime? {
        var value: gint64 = 0
        guard gst_element_query_position(raw, GST_FORMAT_TIME, &value) != 0, value >= 0 else { return nil }
        return ClockTime(nanoseconds: UInt64(value))
    }

    /// The stream's duration, or nil when unknown.
    ///
    /// The corresponding C function is `gst_element_query_duration`.
    public var duration: ClockTime? {
        var value: gint64 = 0
        guard gst_element_query_duration(raw, GST_FORMAT_TIME, &value) != 0, value >= 0 else { return nil }
        return ClockTime(nanoseconds: UInt64(value))
    }

    /// How a seek behaves.
    ///
    /// The corresponding C type is `GstSeekFlags`.
    public struct SeekOptions: OptionSet, Sendable {
        /// The `GstSeekFlags` bits.
        public let rawValue: UInt32
        /// Options from `GstSeekFlags` bits (the named options cover what yt-gst uses).
        public init(rawValue: UInt32) { self.rawValue = rawValue }
        /// Drop what is queued and continue from the new position at once.
        public static let flush = SeekOptions(rawValue: GST_SEEK_FLAG_FLUSH.rawValue)
        /// Land exactly on the time, not on a nearby key unit.
        public static let accurate = SeekOptions(rawValue: GST_SEEK_FLAG_ACCURATE.rawValue)
        /// Post `.segmentDone` at the stop position instead of ending the stream (for seamless loops).
        public static let segment = SeekOptions(rawValue: GST_SEEK_FLAG_SEGMENT.rawValue)
    }

    /// Seeks to `start` (and plays up to `stop`, when given) at `rate`; rates other than 1 need an element that
    /// keeps pitch, such as scaletempo, to sound right.
    ///
    /// - Throws: `.unsupported` when the pipeline refuses (for example, a source that cannot seek).
    /// The corresponding C function is `gst_element_seek`.
    public func seek(
        to start: ClockTime, stop: ClockTime? = nil, rate: Double = 1.0, options: SeekOptions = [.flush, .accurate]
    ) throws(GstError) {
        let ok = gst_element_seek(
            raw, rate, GST_FORMAT_TIME, GstSeekFlags(rawValue: options.rawValue), GST_SEEK_TYPE_SET,
            gint64(start.nanoseconds), stop == nil ? GST_SEEK_TYPE_NONE : GST_SEEK_TYPE_SET,
            stop.map { gint64($0.nanoseconds) } ?? -1)
        guard ok != 0 else {
            throw GstError(kind: .unsupported, message: "the pipeline cannot seek to \(start)")
        }
    }

    // MARK: Bus

    /// Waits up to `timeout` for the next message on the bus; nil when none came.
    ///
    /// The corresponding C function is `gst_bus_timed_pop`.
    public func nextMessage(timeout: Duration) -> Message? {
        guard let msg = gst_bus_timed_pop(bus, ClockTime(timeout).raw) else { return nil }
        return Message(taking: msg, pipeline: raw)
    }

    /// Posts an application message to this pipeline's bus, e.g. from a signal handler, so that one loop
    /// reading the bus makes every decision.
    ///
    /// The corresponding C function is `gst_bus_post`.
    public func postApplicationMessage(named name: String) {
        guard let structure = gst_structure_new_empty(name),
            let msg = gst_message_new_application(CGst_object(raw), structure)
        else { return }
        gst_bus_post(bus, msg)  // takes the message
    }

    /// Pops the first ERROR message already posted (or posted within `timeout`), leaving other messages queued.
    func takePostedError(timeout: Duration) -> GstError? {
        guard let msg = gst_bus_timed_pop_filtered(bus, ClockTime(timeout).raw, GST_MESSAGE_ERROR) else { return nil }
        if case .error(let error) = Message(taking: msg, pipeline: raw).view { return error }
        return nil
    }
}
