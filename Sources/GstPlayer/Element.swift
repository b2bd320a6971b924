// yt-gst — a GStreamer element, owned by reference count.
internal import CGStreamer

/// A GStreamer element inside a pipeline.
///
/// - Note: `@unchecked Sendable`: `raw` is an owned (+1) reference used only through GStreamer's
///   thread-safe API (reference counting, properties, state); this type has no other mutable state.
/// The corresponding C type is `GstElement`.
public class Element: @unchecked Sendable {
    let raw: UnsafeMutablePointer<GstElement>
    /// False only for wrappers that the element itself outlives (see `init(unretained:)`).
    private let holdsReference: Bool

    /// Takes over a reference the caller owns (already sunk if it was floating).
    init(owning raw: UnsafeMutablePointer<GstElement>) {
        self.raw = raw
        self.holdsReference = true
    }

    /// Adds a reference of its own to an element someone else owns.
    init(borrowing raw: UnsafeMutablePointer<GstElement>) {
        self.raw = raw
        self.holdsReference = true
        gst_object_ref(UnsafeMutableRawPointer(raw))
    }

    /// Wraps an element without a reference, for a wrapper that the element itself keeps and releases when it is
    /// finalised (its callbacks' context): a reference there would keep the element alive forever.
    init(unretained raw: UnsafeMutablePointer<GstElement>) {
        self.raw = raw
        self.holdsReference = false
    }

    deinit { if holdsReference { gst_object_unref(UnsafeMutableRawPointer(raw)) } }

    /// The element's name within its pipeline ("src", "pulsesink0").
    ///
    /// The corresponding C function is `gst_object_get_name`.
    public var name: String {
        let text = gst_object_get_name(CGst_object(raw))
        defer { g_free(text) }
        return text.map { String(cString: $0) } ?? ""
    }

    /// The name of the factory that made it ("appsrc", "wavenc"), or its type name for bins made by parsing.
    ///
    /// The corresponding C function is `gst_element_get_factory`.
    public var factoryName: String {
        if let factory = gst_element_get_factory(raw),
            let name = gst_object_get_name(CGst_object(UnsafeMutableRawPointer(factory)))
        {
            defer { g_free(name) }
            return String(cString: name)
        }
        return String(cString: CGst_object_type_name(raw))
    }

    /// Takes the element, in a READY pipeline, to NULL and back to READY: what it made on the way up (pipewiresink's
    /// stream, which keeps the format it was first given) is made afresh when it next goes to PAUSED.
    ///
    /// - Returns: whether it is READY again.
    /// The corresponding C function is `gst_element_set_state`.
    @discardableResult
    public func reopen() -> Bool {
        gst_element_set_state(raw, GST_STATE_NULL) != GST_STATE_CHANGE_FAILURE
            && gst_element_set_state(raw, GST_STATE_READY) != GST_STATE_CHANGE_FAILURE
    }

    /// Whether the element has a property of this name.
    ///
    /// The corresponding C function is `g_object_class_find_property`.
    public func hasProperty(_ property: String) -> Bool {
        g_object_class_find_property(CGst_gobject_class_of(raw), property) != nil
    }

    /// Whether the property has its default value (no one set it, e.g. in a launch string); false when the element
    /// has no such property.
    ///
    /// The corresponding C functions are `g_object_get_property` and `g_param_value_defaults`.
    public func hasDefaultValue(_ property: String) -> Bool {
        guard let spec = g_object_class_find_property(CGst_gobject_class_of(raw), property) else { return false }
        var value = GValue()
        g_value_init(&value, spec.pointee.value_type)
        defer { g_value_unset(&value) }
        g_object_get_property(CGst_gobject(raw), property, &value)
        return g_param_value_defaults(spec, &value) != 0
    }

    /// Puts the property back to its default value; nothing when the element has no such property.
    ///
    /// The corresponding C functions are `g_param_spec_get_default_value` and `g_object_set_property`.
    public func resetToDefault(_ property: String) {
        guard let spec = g_object_class_find_property(CGst_gobject_class_of(raw), property) else { return }
        g_object_set_property(CGst_gobject(raw), property, g_param_spec_get_default_value(spec))
    }

    /// An integer property's value (of any integer type); nil when the element has no such property or it is not
    /// a number.
    ///
    /// The corresponding C functions are `g_object_get_property` and `g_value_transform`.
    public func integer(_ property: String) -> Int? {
        guard let spec = g_object_class_find_property(CGst_gobject_class_of(raw), property) else { return nil }
        var value = GValue()
        g_value_init(&value, spec.pointee.value_type)
        defer { g_value_unset(&value) }
        g_object_get_property(CGst_gobject(raw), property, &value)
        var number = GValue()
        g_value_init(&number, CGst_type_int64())
        defer { g_value_unset(&number) }
        guard g_value_type_transformable(spec.pointee.value_type, CGst_type_int64()) != 0,
            g_value_transform(&value, &number) != 0
        else { return nil }
        return Int(g_value_get_int64(&number))
    }

    /// A string property's value; nil when the element has no such property, it is not a string or it is unset.
    ///
    /// The corresponding C function is `g_object_get_property`.
    public func string(_ property: String) -> String? {
        guard let spec = g_object_class_find_property(CGst_gobject_class_of(raw), property),
            spec.pointee.value_type == CGst_type_string()
        else { return nil }
        var value = GValue()
        g_value_init(&value, spec.pointee.value_type)
        defer { g_value_unset(&value) }
        g_object_get_property(CGst_gobject(raw), property, &value)
        return g_value_get_string(&value).map { String(cString: $0) }
    }

    /// Sets a property from its string form, as gst-launch would ("5004", "true", "0.5", "my song!.wav"): for text
    /// the user gives (`prop=value` in a template or option). Values the code has go through the typed
    /// `set(_:to:)`, which checks their type and range.
    ///
    /// The value is set on the parsed element, never pasted into launch text, so any character arrives unchanged.
    /// - Throws: `.notFound` when there is no such property (`gst_util_set_object_arg` would ignore it silently).
    /// The corresponding C function is `gst_util_set_object_arg`.
    public func set(_ property: String, fromString value: String) throws(GstError) {
        try requireProperty(property)
        gst_util_set_object_arg(CGst_gobject(raw), property, value)
    }

    /// Sets a caps property (a capsfilter's or udpsrc's `caps`) to `caps`.
    ///
    /// - Throws: `.notFound` when there is no such property; `.invalidValue` when GStreamer does not take the caps.
    /// The corresponding C function is `g_object_set_property` with a `GstCaps` value.
    public func set(_ property: String, to caps: Caps) throws(GstError) {
        try requireProperty(property)
        let made = try caps.makeGstCaps()
        defer { gst_caps_unref(made) }
        var value = GValue()
        g_value_init(&value, gst_caps_get_type())
        defer { g_value_unset(&value) }
        gst_value_set_caps(&value, made)  // takes its own reference
        g_object_set_property(CGst_gobject(raw), property, &value)
    }

    /// The property's description; throws `.notFound` when the element has no property of this name (setting one
    /// it lacks would be ignored).
    @discardableResult
    func requireProperty(_ property: String) throws(GstError) -> UnsafeMutablePointer<GParamSpec> {
        guard let spec = g_object_class_find_property(CGst_gobject_class_of(raw), property) else {
            throw GstError(
                kind: .notFound, message: "element \"\(name)\" (\(factoryName)) has no property \"\(property)\"")
        }
        return spec
    }
}
