// yt-gst — real bus messages made without a pipeline, for a test's bus (EmbeddedBus) to carry what a pipeline posts.
internal import CGStreamer

extension Message {
    /// The end of stream, as a pipeline posts it once every sink has finished.
    ///
    /// The corresponding C function is `gst_message_new_eos`.
    public static func endOfStream() -> Message { made(gst_message_new_eos(nil), for: nil) }

    /// An ERROR message carrying `error` (its domain, code, message, debug string and element path).
    ///
    /// The corresponding C function is `gst_message_new_error`.
    public static func error(_ error: GstError) -> Message { problem(error, gst_message_new_error) }

    /// A WARNING message carrying `warning`.
    ///
    /// The corresponding C function is `gst_message_new_warning`.
    public static func warning(_ warning: GstError) -> Message { problem(warning, gst_message_new_warning) }

    /// A segment seek's end (see `Pipeline.SeekOptions.segment`).
    ///
    /// The corresponding C function is `gst_message_new_segment_done`.
    public static func segmentDone() -> Message {
        made(gst_message_new_segment_done(nil, GST_FORMAT_TIME, 0), for: nil)
    }

    /// A TAG message with `tags`; a tag GStreamer does not know, or a value its type does not read, is left out.
    ///
    /// The corresponding C function is `gst_message_new_tag`.
    public static func tags(_ tags: [Tag]) -> Message {
        Gst.initialize()
        let list = gst_tag_list_new_empty()
        for tag in tags where gst_tag_exists(tag.name) != 0 {
            var value = GValue()
            g_value_init(&value, gst_tag_get_type(tag.name))
            if gst_value_deserialize(&value, tag.value) != 0 {
                gst_tag_list_add_value(list, GST_TAG_MERGE_APPEND, tag.name, &value)
            }
            g_value_unset(&value)
        }
        return made(gst_message_new_tag(nil, list), for: nil)
    }

    /// An application message (as `Pipeline.postApplicationMessage(named:)` and the signal handlers post).
    ///
    /// The corresponding C function is `gst_message_new_application`.
    public static func application(_ structure: Structure) -> Message {
        made(gst_message_new_application(nil, structure.makeGstStructure()), for: structure.elementPath)
    }

    /// An application message named `name` with `fields`.
    public static func application(name: String, fields: [(name: String, value: Structure.Value)] = []) -> Message {
        application(Structure(name: name, fields: fields))
    }

    /// An element message (`level`, `GstUDPSrcTimeout`, a clock's statistics) from `structure.elementPath`.
    ///
    /// The corresponding C function is `gst_message_new_element`.
    public static func element(_ structure: Structure) -> Message {
        made(gst_message_new_element(nil, structure.makeGstStructure()), for: structure.elementPath)
    }

    /// An ERROR or WARNING message made by `new` from `problem`'s GError and debug string.
    private static func problem(
        _ problem: GstError,
        _ new: (
            UnsafeMutablePointer<GstObject>?, UnsafeMutablePointer<GError>?, UnsafePointer<gchar>?
        ) -> UnsafeMutablePointer<GstMessage>?
    ) -> Message {
        Gst.initialize()
        let error = g_error_new_literal(g_quark_from_string(problem.domain), problem.code, problem.message)
        defer { g_error_free(error) }
        return made(new(nil, error, problem.debug), for: problem.elementPath)
    }

    /// Wraps a message just made (GStreamer returns NULL only when it cannot allocate).
    private static func made(_ raw: UnsafeMutablePointer<GstMessage>?, for elementPath: String?) -> Message {
        guard let raw else { fatalError("GStreamer could not allocate a message") }
        return Message(made: raw, elementPath: elementPath)
    }
}

extension Structure {
    /// A new GstStructure (transfer full) with the same name and typed fields, read from its caps text.
    ///
    /// The corresponding C function is `gst_structure_from_string`.
    func makeGstStructure() -> UnsafeMutablePointer<GstStructure> {
        Gst.initialize()
        let text = ([name] + fields.map { "\($0.name)=\($0.value.typedText)" }).joined(separator: ", ") + ";"
        return gst_structure_from_string(text, nil) ?? gst_structure_new_empty(name)
    }
}
