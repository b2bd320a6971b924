// yt-gst — which compressed formats the installed plugins can decode.
internal import CGStreamer

extension Gst {
    /// Whether an installed decoder element accepts `caps` on its sink pad (e.g. `audio/x-adpcm, layout=dvi`).
    ///
    /// Used before playing compressed audio, so a codec nothing can decode is one clear error instead of a
    /// pipeline that fails to link.
    /// The corresponding C functions are `gst_element_factory_list_get_elements` (decoders of marginal rank and up)
    /// and `gst_element_factory_list_filter`.
    public static func hasDecoder(forCaps caps: Caps) -> Bool { !decoders(forCaps: caps).isEmpty }

    /// Names of the installed decoders that accept `caps`, best rank first (for `info` and messages).
    ///
    /// The corresponding C functions are `gst_element_factory_list_get_elements` and
    /// `gst_element_factory_list_filter`.
    public static func decoders(forCaps caps: Caps) -> [String] {
        guard let parsed = try? caps.makeGstCaps() else { return [] }
        defer { gst_caps_unref(parsed) }
        let decoders = gst_element_factory_list_get_elements(GstElementFactoryListType(1), GST_RANK_MARGINAL)
        defer { gst_plugin_feature_list_free(decoders) }
        let matching = gst_element_factory_list_filter(decoders, parsed, GST_PAD_SINK, 0)
        defer { gst_plugin_feature_list_free(matching) }
        var names: [String] = []
        var node = matching
        while let current = node {
            if let feature = current.pointee.data {
                let name = gst_object_get_name(feature.assumingMemoryBound(to: GstObject.self))  // transfer full
                defer { g_free(name) }
                if let name { names.append(String(cString: name)) }
            }
            node = current.pointee.next
        }
        return names
    }
}
