// yt-gst — the D-Bus values a service sends and takes, and their GVariants.
internal import CGStreamer

/// A value on D-Bus, of the types a media player's interfaces use.
public enum DBusValue: Sendable, Equatable {
    case string(String)
    case objectPath(String)
    case bool(Bool)
    case double(Double)
    case int64(Int64)
    case uint32(UInt32)
    /// `as`
    case strings([String])
    /// `a{sv}`: each value in a variant.
    case dictionary([String: DBusValue])

    public var string: String? {
        switch self {
        case .string(let text), .objectPath(let text): text
        default: nil
        }
    }

    public var double: Double? {
        switch self {
        case .double(let number): number
        case .int64(let number): Double(number)
        case .uint32(let number): Double(number)
        default: nil
        }
    }

    /// A new floating GVariant (consumed by the GLib call it is passed to).
    func variant() -> OpaquePointer {
        switch self {
        case .string(let text): g_variant_new_string(text)
        case .objectPath(let path): g_variant_new_object_path(path)
        case .bool(let flag): g_variant_new_boolean(flag ? 1 : 0)
        case .double(let number): g_variant_new_double(number)
        case .int64(let number): g_variant_new_int64(gint64(number))
        case .uint32(let number): g_variant_new_uint32(number)
        case .strings(let texts): Self.array(of: "s", texts.map { g_variant_new_string($0) })
        case .dictionary(let entries):
            Self.array(
                of: "{sv}",
                entries.sorted { $0.key < $1.key }.map {
                    g_variant_new_dict_entry(g_variant_new_string($0.key), g_variant_new_variant($0.value.variant()))
                })
        }
    }

    /// A tuple of `values`, as method arguments and signal parameters are sent.
    static func tuple(_ values: [DBusValue]) -> OpaquePointer {
        var children: [OpaquePointer?] = values.map { $0.variant() }
        return g_variant_new_tuple(&children, gsize(children.count))
    }

    private static func array(of type: String, _ children: [OpaquePointer?]) -> OpaquePointer {
        var children = children
        return g_variant_new_array(CGst_variant_type(type), &children, gsize(children.count))
    }

    /// The value of `variant` (borrowed); nil for a type not listed here.
    init?(variant: OpaquePointer) {
        switch String(cString: g_variant_get_type_string(variant)) {
        case "s": self = .string(String(cString: g_variant_get_string(variant, nil)))
        case "o": self = .objectPath(String(cString: g_variant_get_string(variant, nil)))
        case "b": self = .bool(g_variant_get_boolean(variant) != 0)
        case "d": self = .double(g_variant_get_double(variant))
        case "x": self = .int64(Int64(g_variant_get_int64(variant)))
        case "u": self = .uint32(g_variant_get_uint32(variant))
        case "as": self = .strings(Self.children(of: variant).compactMap { $0?.string })
        case "v":
            let inner = g_variant_get_variant(variant)!
            defer { g_variant_unref(inner) }
            self.init(variant: inner)
        default: return nil
        }
    }

    /// The values of a tuple's (or an array's) children; nil for those of types not listed here.
    static func children(of variant: OpaquePointer) -> [DBusValue?] {
        (0..<g_variant_n_children(variant)).map { index in
            let child = g_variant_get_child_value(variant, index)!
            defer { g_variant_unref(child) }
            return DBusValue(variant: child)
        }
    }
}

/// A D-Bus error reply: one of the standard errors, with a message for the caller.
public struct DBusError: Error, Sendable, Equatable {
    public enum Kind: Sendable {
        /// `org.freedesktop.DBus.Error.InvalidArgs`
        case invalidArgs
        /// `org.freedesktop.DBus.Error.NotSupported`
        case notSupported
        /// `org.freedesktop.DBus.Error.UnknownMethod`
        case unknownMethod
        /// `org.freedesktop.DBus.Error.UnknownProperty`
        case unknownProperty
        /// `org.freedesktop.DBus.Error.PropertyReadOnly`
        case propertyReadOnly
    }

    public var kind: Kind
    public var message: String

    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    /// The error's name on the bus.
    public var name: String {
        switch kind {
        case .invalidArgs: "org.freedesktop.DBus.Error.InvalidArgs"
        case .notSupported: "org.freedesktop.DBus.Error.NotSupported"
        case .unknownMethod: "org.freedesktop.DBus.Error.UnknownMethod"
        case .unknownProperty: "org.freedesktop.DBus.Error.UnknownProperty"
        case .propertyReadOnly: "org.freedesktop.DBus.Error.PropertyReadOnly"
        }
    }

    /// GDBus's code for it (GDBus names the error from the code in property replies).
    var code: GDBusError {
        switch kind {
        case .invalidArgs: G_DBUS_ERROR_INVALID_ARGS
        case .notSupported: G_DBUS_ERROR_NOT_SUPPORTED
        case .unknownMethod: G_DBUS_ERROR_UNKNOWN_METHOD
        case .unknownProperty: G_DBUS_ERROR_UNKNOWN_PROPERTY
        case .propertyReadOnly: G_DBUS_ERROR_PROPERTY_READ_ONLY
        }
    }
}
