// yt-gst — bus messages as a Swift enum.
internal import CGStreamer

/// A message from a pipeline's bus, copied out of GStreamer so it outlives the C message.
///
/// The corresponding C type is `GstMessage`.
public enum Message: Sendable {
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
    /// A message the application posted to itself (interrupts, key presses).
    case application(Structure)
    /// Any other kind, by its GStreamer name ("stream-start", "latency", ...).
    case other(String)

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

    /// Copies a message the caller still owns.
    init(_ msg: UnsafeMutablePointer<GstMessage>, pipeline: UnsafeMutablePointer<GstElement>) {
        let pathText = CGst_message_source_path(msg)
        defer { g_free(pathText) }
        let elementPath = pathText.map { String(cString: $0) }
        switch msg.pointee.type {
        case GST_MESSAGE_EOS:
            self = .endOfStream
        case GST_MESSAGE_ERROR:
            var error: UnsafeMutablePointer<GError>?
            var debug: UnsafeMutablePointer<gchar>?
            gst_message_parse_error(msg, &error, &debug)
            self = .error(GstError(kind: .stream, taking: error, debug: debug, elementPath: elementPath))
        case GST_MESSAGE_WARNING:
            var error: UnsafeMutablePointer<GError>?
            var debug: UnsafeMutablePointer<gchar>?
            gst_message_parse_warning(msg, &error, &debug)
            self = .warning(GstError(kind: .stream, taking: error, debug: debug, elementPath: elementPath))
        case GST_MESSAGE_STATE_CHANGED:
            var old = GST_STATE_VOID_PENDING
            var new = GST_STATE_VOID_PENDING
            var pending = GST_STATE_VOID_PENDING
            gst_message_parse_state_changed(msg, &old, &new, &pending)
            self = .stateChanged(
                old: State(old), new: State(new), pending: State(pending),
                isPipeline: CGst_message_source_is(msg, pipeline) != 0)
        case GST_MESSAGE_ASYNC_DONE:
            self = .asyncDone
        case GST_MESSAGE_SEGMENT_DONE:
            self = .segmentDone
        case GST_MESSAGE_TAG:
            var list: UnsafeMutablePointer<GstTagList>?
            gst_message_parse_tag(msg, &list)
            defer { if let list { gst_tag_list_unref(list) } }
            self = .tags(list.map(Message.tags(of:)) ?? [])
        case GST_MESSAGE_ELEMENT:
            self = .element(Structure(message: msg, elementPath: elementPath))
        case GST_MESSAGE_APPLICATION:
            self = .application(Structure(message: msg, elementPath: elementPath))
        default:
            self = .other(String(cString: gst_message_type_get_name(msg.pointee.type)))
        }
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

extension Structure {
    /// The structure of an element or application message (an empty one named "" when it has none).
    fileprivate init(message: UnsafeMutablePointer<GstMessage>, elementPath: String?) {
        if let structure = gst_message_get_structure(message) {
            self.init(structure, elementPath: elementPath)
        } else {
            self.init(name: "", elementPath: elementPath)
        }
    }
}
