// yt-gst — a bus message: one reference to the GstMessage, read through a view (as gstreamer-rs's MessageView).
internal import CGStreamer

/// A message from a pipeline's bus (or one made in Swift for a test's bus), holding one reference to the
/// GStreamer message; `view` reads it as an enum.
///
/// Nothing is copied out until `view` is read, so a loop that passes over a message (an inner element's state
/// change, a latency message) costs no parsing.
///
/// The corresponding C type is `GstMessage`; `view` corresponds to gstreamer-rs's `Message::view`.
/// - Note: Sendable: a GstMessage is reference-counted atomically and is not changed once posted.
public final class Message: @unchecked Sendable {
    let raw: UnsafeMutablePointer<GstMessage>
    /// Whether the pipeline that delivered it posted it itself (its own state changes, not its elements').
    private let fromPipeline: Bool
    /// The element path of a message made in Swift, which has no element behind it (see Message+Making.swift).
    private let madeFor: String?

    /// Takes the caller's reference to `raw`, from the bus of `pipeline`.
    init(taking raw: UnsafeMutablePointer<GstMessage>, pipeline: UnsafeMutablePointer<GstElement>?) {
        self.raw = raw
        self.fromPipeline = pipeline.map { CGst_message_source_is(raw, $0) != 0 } ?? false
        self.madeFor = nil
    }

    /// Takes the reference to a message made in Swift, reported as posted by `elementPath`.
    init(made raw: UnsafeMutablePointer<GstMessage>, elementPath: String?) {
        self.raw = raw
        self.fromPipeline = false
        self.madeFor = elementPath
    }

    deinit { gst_message_unref(raw) }

    /// What the message says, parsed from the GStreamer message on each read (keep it to read it twice).
    public var view: View {
        switch raw.pointee.type {
        case GST_MESSAGE_EOS: .endOfStream
        case GST_MESSAGE_ERROR: .error(problem(gst_message_parse_error))
        case GST_MESSAGE_WARNING: .warning(problem(gst_message_parse_warning))
        case GST_MESSAGE_STATE_CHANGED: stateChange
        case GST_MESSAGE_ASYNC_DONE: .asyncDone
        case GST_MESSAGE_SEGMENT_DONE: .segmentDone
        case GST_MESSAGE_TAG: .tags(tags)
        case GST_MESSAGE_ELEMENT: .element(structure)
        case GST_MESSAGE_APPLICATION: .application(structure)
        default: .other(String(cString: gst_message_type_get_name(raw.pointee.type)))
        }
    }

    /// What a message says, as an enum.
    public enum View: Sendable {
        /// The whole pipeline has played out (every sink has reached end of stream).
        case endOfStream
        /// An element failed; the pipeline stops streaming.
        case error(GstError)
        /// An element reports a problem it works around.
        case warning(GstError)
        /// An element changed state. `isPipeline` is true for the pipeline's own changes.
        case stateChanged(old: State, new: State, pending: State, isPipeline: Bool)
        /// A state change that went `.async` has completed (the pipeline has prerolled or finished seeking).
        case asyncDone
        /// A segment seek reached its stop position (see `Pipeline.SeekOptions.segment`).
        case segmentDone
        /// Metadata found in the stream: tag name ("title", "artist", ...) and its values as text.
        case tags([Tag])
        /// An element-specific message, e.g. `level` from the level element or `GstUDPSrcTimeout`.
        case element(Structure)
        /// A message the application posted to itself (a sender's end, a rejected caller).
        case application(Structure)
        /// Any other kind, by its GStreamer name ("stream-start", "latency", ...).
        case other(String)
    }

    /// One tag from a tag list.
    public struct Tag: Sendable, Equatable {
        /// The GStreamer tag name ("title", "artist", "track-number", ...).
        public var name: String
        /// The value as text: strings as they are, other types serialised ("3", "2024-05-01").
        public var value: String

        /// A tag to send with `AppSourceProtocol.pushTags`, or to compare with one received.
        public init(name: String, value: String) {
            self.name = name
            self.value = value
        }
    }

    /// Whether it is a state change of an element inside the pipeline (which a player's controller never needs).
    var isInnerStateChange: Bool { raw.pointee.type == GST_MESSAGE_STATE_CHANGED && !fromPipeline }

    /// Whether it is an ERROR message (read without parsing it).
    var isError: Bool { raw.pointee.type == GST_MESSAGE_ERROR }

    /// Whether it is of a kind a player's controller never needs: `.asyncDone` or `.other`.
    var isHousekeeping: Bool {
        switch raw.pointee.type {
        case GST_MESSAGE_EOS, GST_MESSAGE_ERROR, GST_MESSAGE_WARNING, GST_MESSAGE_STATE_CHANGED,
            GST_MESSAGE_SEGMENT_DONE, GST_MESSAGE_TAG, GST_MESSAGE_ELEMENT, GST_MESSAGE_APPLICATION:
            false
        default: true
        }
    }

    /// The path of the element that posted it.
    private var elementPath: String? {
        guard let path = CGst_message_source_path(raw) else { return madeFor }
        defer { g_free(path) }
        return String(cString: path)
    }

    /// An error or a warning, by the parse function of its kind.
    private func problem(
        _ parse: (
            UnsafeMutablePointer<GstMessage>?, UnsafeMutablePointer<UnsafeMutablePointer<GError>?>?,
            UnsafeMutablePointer<UnsafeMutablePointer<gchar>?>?
        ) -> Void
    ) -> GstError {
        var error: UnsafeMutablePointer<GError>?
        var debug: UnsafeMutablePointer<gchar>?
        parse(raw, &error, &debug)
        return GstError(kind: .stream, taking: error, debug: debug, elementPath: elementPath)
    }

    private var stateChange: View {
        var old = GST_STATE_VOID_PENDING
        var new = GST_STATE_VOID_PENDING
        var pending = GST_STATE_VOID_PENDING
        gst_message_parse_state_changed(raw, &old, &new, &pending)
        return .stateChanged(old: State(old), new: State(new), pending: State(pending), isPipeline: fromPipeline)
    }

    private var tags: [Tag] {
        var list: UnsafeMutablePointer<GstTagList>?
        gst_message_parse_tag(raw, &list)
        defer { if let list { gst_tag_list_unref(list) } }
        return list.map(Message.tags(of:)) ?? []
    }

    /// The structure of an element or application message (an empty one named "" when it has none).
    private var structure: Structure {
        guard let structure = gst_message_get_structure(raw) else {
            return Structure(name: "", elementPath: elementPath)
        }
        return Structure(structure, elementPath: elementPath)
    }

    /// Every value of every tag in a tag list, strings as they are and other types serialised.
    static func tags(of list: UnsafeMutablePointer<GstTagList>) -> [Tag] {
        var result: [Tag] = []
        for index in 0..<gst_tag_list_n_tags(list) {
            guard let name = gst_tag_list_nth_tag_name(list, guint(index)) else { continue }
            for valueIndex in 0..<gst_tag_list_get_tag_size(list, name) {
                guard let value = gst_tag_list_get_value_index(list, name, valueIndex) else { continue }
                let text: String
                if let string = CGst_value_string(value) {
                    text = String(cString: string)
                } else {
                    let serialised = gst_value_serialize(value)
                    defer { g_free(serialised) }
                    text = serialised.map { String(cString: $0) } ?? ""
                }
                result.append(Tag(name: String(cString: name), value: text))
            }
        }
        return result
    }
}
