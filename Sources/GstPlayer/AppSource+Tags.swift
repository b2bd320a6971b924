// yt-gst — metadata from the application into the stream: a tag event sent through the appsrc.
internal import CGStreamer

extension AppSource {
    /// Sends `tags` downstream as one tag event, in order with the data: sent from the first need-data callback, it
    /// flows after the stream start, caps and segment and ahead of the first buffer, and every sink posts it on the
    /// bus (so players see `.tags`). (Sent before a seekable appsrc starts, the flushing seek it does at start drops
    /// it.)
    ///
    /// Each tag is a GStreamer tag name ("title", "artist", "track-number", "datetime", ...) and its value as text;
    /// text is converted to the tag's type (`gst_value_deserialize`). Unknown tag names and values that do not
    /// convert are skipped.
    /// - Returns: how many tags were sent (0: no event was sent).
    /// The corresponding C functions are `gst_tag_list_add_value`, `gst_event_new_tag` and `gst_element_send_event`.
    @discardableResult
    public func pushTags(_ tags: [Message.Tag]) -> Int {
        guard let list = gst_tag_list_new_empty() else { return 0 }
        let stringType = g_type_from_name("gchararray")
        var added = 0
        for tag in tags where gst_tag_exists(tag.name) != 0 {
            let type = gst_tag_get_type(tag.name)
            var value = GValue()
            g_value_init(&value, type)
            defer { g_value_unset(&value) }
            if type == stringType {
                g_value_set_string(&value, tag.value)
            } else if gst_value_deserialize(&value, tag.value) == 0 {
                continue
            }
            gst_tag_list_add_value(list, GST_TAG_MERGE_APPEND, tag.name, &value)
            added += 1
        }
        guard added > 0, let event = gst_event_new_tag(list) else {  // the event takes the list
            if added == 0 { gst_tag_list_unref(list) }
            return 0
        }
        return gst_element_send_event(raw, event) != 0 ? added : 0  // takes the event
    }
}
