// yt-gst — typed property setters: a Swift value goes into the property's own type, checked, without text.
internal import CGStreamer

/// A Swift enum for a GStreamer enum property, whose raw values are the GStreamer nicks (`slave-method`'s "custom").
public protocol PropertyEnum: RawRepresentable<String> {}

extension Element {
    /// Sets a boolean property ("sync", "mute").
    ///
    /// - Throws: `.notFound` when there is no such property; `.invalidValue` when it is not a boolean or cannot be
    ///   set after construction.
    /// The corresponding C function is `g_object_set_property`.
    public func set(_ property: String, to value: Bool) throws(GstError) { try assign(property, .bool(value)) }

    /// Sets an integer property of any width or signedness ("port", "latency", "max-size-time"), a floating-point
    /// one, or an enum property by its numeric value (srtsink's "pbkeylen" 16).
    ///
    /// - Throws: as `set(_:to:)` for a boolean; `.invalidValue` too when `value` is outside the property's range.
    public func set(_ property: String, to value: Int) throws(GstError) { try assign(property, .int(value)) }

    /// Sets a floating-point property ("volume").
    ///
    /// - Throws: as `set(_:to:)` for a boolean; `.invalidValue` too when `value` is outside the property's range.
    public func set(_ property: String, to value: Double) throws(GstError) { try assign(property, .double(value)) }

    /// Sets a string property ("location", "uri"); any character arrives unchanged.
    ///
    /// - Throws: as `set(_:to:)` for a boolean.
    public func set(_ property: String, to value: String) throws(GstError) { try assign(property, .string(value)) }

    /// Sets an enum property by the nick `value` stands for.
    ///
    /// - Throws: as `set(_:to:)` for a boolean; `.invalidValue` too when the enum has no such nick.
    public func set(_ property: String, to value: some PropertyEnum) throws(GstError) {
        try assign(property, .nick(value.rawValue))
    }

    /// Converts `input` into the property's type without loss (or fails) and sets it.
    private func assign(_ property: String, _ input: PropertyInput) throws(GstError) {
        let spec = try requireProperty(property)
        let flags = spec.pointee.flags.rawValue
        let type = spec.pointee.value_type
        guard flags & G_PARAM_WRITABLE.rawValue != 0, flags & G_PARAM_CONSTRUCT_ONLY.rawValue == 0 else {
            throw invalid(property, "cannot be set (read-only, or only when the element is made)")
        }
        var value = GValue()
        g_value_init(&value, type)
        defer { g_value_unset(&value) }
        guard input.store(in: &value, type: type) else {
            throw invalid(property, "cannot take \(input) (a \(String(cString: g_type_name(type))))")
        }
        guard g_param_value_validate(spec, &value) == 0 else {
            throw invalid(property, "cannot take \(input) (out of range)")
        }
        g_object_set_property(CGst_gobject(raw), property, &value)
    }

    /// `.invalidValue` naming the element and the property.
    private func invalid(_ property: String, _ problem: String) -> GstError {
        GstError(
            kind: .invalidValue, message: "element \"\(name)\" (\(factoryName)): property \"\(property)\" \(problem)")
    }
}

/// A value on its way into a property, before it takes the property's type.
private enum PropertyInput: CustomStringConvertible {
    case bool(Bool), int(Int), double(Double), string(String), nick(String)

    var description: String {
        switch self {
        case .bool(let flag): "\(flag)"
        case .int(let number): "\(number)"
        case .double(let number): "\(number)"
        case .string(let text), .nick(let text): "\"\(text)\""
        }
    }

    /// Stores the value in `value` (initialised to `type`); false when `type` cannot hold it exactly.
    func store(in value: inout GValue, type: GType) -> Bool {
        let fundamental = g_type_fundamental(type)
        switch self {
        case .bool(let flag) where fundamental == CGst_type_boolean(): g_value_set_boolean(&value, flag ? 1 : 0)
        case .string(let text) where fundamental == CGst_type_string(): g_value_set_string(&value, text)
        case .double(let number) where fundamental == CGst_type_double(): g_value_set_double(&value, number)
        case .double(let number) where fundamental == CGst_type_float(): g_value_set_float(&value, Float(number))
        case .int(let number): return Self.store(number, in: &value, type: type)
        case .nick(let nick): return Self.storeEnum(in: &value, type: type) { g_enum_get_value_by_nick($0, nick) }
        default: return false
        }
        return true
    }

    /// Stores an integer in an integer, floating-point or enum value, if it fits.
    private static func store(_ number: Int, in value: inout GValue, type: GType) -> Bool {
        switch g_type_fundamental(type) {
        case CGst_type_int():
            guard let number = Int32(exactly: number) else { return false }
            g_value_set_int(&value, number)
        case CGst_type_uint():
            guard let number = UInt32(exactly: number) else { return false }
            g_value_set_uint(&value, number)
        case CGst_type_long(): g_value_set_long(&value, number)
        case CGst_type_ulong():
            guard let number = UInt(exactly: number) else { return false }
            g_value_set_ulong(&value, number)
        case CGst_type_int64(): g_value_set_int64(&value, gint64(number))
        case CGst_type_uint64():
            guard let number = UInt64(exactly: number) else { return false }
            g_value_set_uint64(&value, guint64(number))
        case CGst_type_double(): g_value_set_double(&value, Double(number))
        case CGst_type_float(): g_value_set_float(&value, Float(number))
        case CGst_type_enum():
            guard let number = Int32(exactly: number) else { return false }
            return storeEnum(in: &value, type: type) { g_enum_get_value($0, number) }
        default: return false
        }
        return true
    }

    /// Stores the entry `find` picks from the enum `type`; false when `type` is no enum or `find` finds nothing.
    private static func storeEnum(
        in value: inout GValue, type: GType,
        find: (UnsafeMutablePointer<GEnumClass>) -> UnsafeMutablePointer<GEnumValue>?
    ) -> Bool {
        guard g_type_fundamental(type) == CGst_type_enum(), let enumClass = g_type_class_ref(type) else { return false }
        defer { g_type_class_unref(enumClass) }
        guard let entry = find(enumClass.assumingMemoryBound(to: GEnumClass.self)) else { return false }
        g_value_set_enum(&value, entry.pointee.value)
        return true
    }
}
