// yt-gst — a GstStructure copied into Swift with typed fields: element messages, application messages, stats.
internal import CGStreamer

/// A named set of typed fields, as GStreamer carries in element messages (`level`, `GstUDPSrcTimeout`), application
/// messages and structure-valued properties (`rtpjitterbuffer`'s `stats`).
///
/// Fields keep their GStreamer types, so callers read numbers as numbers and never parse serialised text.
public struct Structure: Sendable, Equatable, CustomStringConvertible {
    /// A field's value.
    public enum Value: Sendable, Equatable {
        /// gboolean.
        case bool(Bool)
        /// Any signed integer type (gint, glong, gint64).
        case int(Int64)
        /// Any unsigned integer type (guint, gulong, guint64, enums and flags by number).
        case uint(UInt64)
        /// gdouble or gfloat.
        case double(Double)
        /// A string (gchararray); a NULL string reads as "".
        case string(String)
        /// A list or array of values (GstValueList, GstValueArray, GValueArray).
        case list([Value])
        /// A nested structure (GstStructure), copied with its fields.
        case structure(Structure)
        /// A GstBitmask, e.g. raw audio's `channel-mask` (bit n = `GstAudioChannelPosition` n).
        case bitmask(UInt64)
        /// A GstFraction, numerator and denominator (frame rates, pixel aspect ratios).
        case fraction(Int, Int)
        /// A GstBuffer's bytes, copied, e.g. a codec's `codec_data`.
        case buffer([UInt8])
        /// A type this wrapper does not model (caps, dates, flag sets, ...), in GStreamer's text form.
        case serialized(String)

        /// The value as a Double when it is a number.
        public var number: Double? {
            switch self {
            case .int(let value): Double(value)
            case .uint(let value): Double(value)
            case .double(let value): value
            default: nil
            }
        }
    }

    /// The structure's name, e.g. "level" or "application/x-rtp-jitterbuffer-stats".
    public var name: String
    /// The fields in their order.
    public var fields: [(name: String, value: Value)]
    /// Path of the element that posted it, for messages.
    public var elementPath: String?

    /// The name of the element that posted it ("hls0" from ".../GstSplitMuxSink:hls0").
    public var elementName: String? { GstError.elementName(inPath: elementPath) }

    /// A structure made in Swift (tests, and messages the application builds).
    public init(name: String, fields: [(name: String, value: Value)] = [], elementPath: String? = nil) {
        self.name = name
        self.fields = fields
        self.elementPath = elementPath
    }

    /// The field of this name.
    public subscript(_ field: String) -> Value? { fields.first { $0.name == field }?.value }

    /// A numeric field as a Double (any integer or floating type).
    public func number(_ field: String) -> Double? { self[field]?.number }

    /// A numeric field as an unsigned integer (counts).
    public func count(_ field: String) -> UInt64? {
        switch self[field] {
        case .uint(let value)?: value
        case .int(let value)? where value >= 0: UInt64(value)
        default: nil
        }
    }

    /// A string field.
    public func string(_ field: String) -> String? {
        if case .string(let value)? = self[field] { return value }
        return nil
    }

    /// A boolean field.
    public func bool(_ field: String) -> Bool? {
        if case .bool(let value)? = self[field] { return value }
        return nil
    }

    /// A list of numbers (one per channel in `level`'s `rms` and `peak`).
    public func numbers(_ field: String) -> [Double]? {
        guard case .list(let values)? = self[field] else { return nil }
        let numbers = values.compactMap(\.number)
        return numbers.count == values.count ? numbers : nil
    }

    /// For logs: "name, field=value, ...".
    public var description: String {
        ([name] + fields.map { "\($0.name)=\(Self.describe($0.value))" }).joined(separator: ", ")
    }

    private static func describe(_ value: Value) -> String {
        switch value {
        case .bool(let value): "\(value)"
        case .int(let value): "\(value)"
        case .uint(let value): "\(value)"
        case .double(let value): "\(value)"
        case .string(let value): "\"\(value)\""
        case .list(let values): "{ " + values.map(describe).joined(separator: ", ") + " }"
        case .structure(let structure): "[\(structure)]"
        case .bitmask, .fraction, .buffer: value.text
        case .serialized(let text): text
        }
    }

    /// Equal when name, element path and fields (in order) are; written out because tuples are not `Equatable`.
    public static func == (lhs: Structure, rhs: Structure) -> Bool {
        lhs.name == rhs.name && lhs.elementPath == rhs.elementPath && lhs.fields.count == rhs.fields.count
            && zip(lhs.fields, rhs.fields).allSatisfy { $0.name == $1.name && $0.value == $1.value }
    }
}

extension Structure {
    /// Copies a structure GStreamer still owns.
    init(_ structure: UnsafePointer<GstStructure>, elementPath: String? = nil) {
        var fields: [(name: String, value: Value)] = []
        for index in 0..<gst_structure_n_fields(structure) {
            guard let name = gst_structure_nth_field_name(structure, guint(index)),
                let value = gst_structure_get_value(structure, name)
            else { continue }
            fields.append((String(cString: name), Value(value)))
        }
        self.init(name: String(cString: gst_structure_get_name(structure)), fields: fields, elementPath: elementPath)
    }
}

extension Structure.Value {
    /// Copies a GValue by its type: numbers, booleans, strings, bitmasks, fractions and buffers as such, lists
    /// element by element, nested structures recursively, anything else in its serialised form.
    init(_ value: UnsafePointer<GValue>) {
        let type = value.pointee.g_type
        let mutable = UnsafeMutablePointer(mutating: value)
        switch g_type_fundamental(type) {
        case CGst_type_boolean(): self = .bool(g_value_get_boolean(value) != 0)
        case CGst_type_int(): self = .int(Int64(g_value_get_int(value)))
        case CGst_type_long(): self = .int(Int64(g_value_get_long(value)))
        case CGst_type_int64(): self = .int(Int64(g_value_get_int64(value)))
        case CGst_type_uint(): self = .uint(UInt64(g_value_get_uint(value)))
        case CGst_type_ulong(): self = .uint(UInt64(g_value_get_ulong(value)))
        case CGst_type_uint64(): self = .uint(UInt64(g_value_get_uint64(value)))
        case CGst_type_enum(): self = .int(Int64(g_value_get_enum(value)))
        case CGst_type_flags(): self = .uint(UInt64(g_value_get_flags(value)))
        case CGst_type_double(): self = .double(g_value_get_double(value))
        case CGst_type_float(): self = .double(Double(g_value_get_float(value)))
        case CGst_type_string(): self = .string(g_value_get_string(value).map { String(cString: $0) } ?? "")
        default:
            if type == gst_value_list_get_type() {
                self = .list((0..<gst_value_list_get_size(value)).map { Self(gst_value_list_get_value(value, $0)) })
            } else if type == gst_value_array_get_type() {
                self = .list((0..<gst_value_array_get_size(value)).map { Self(gst_value_array_get_value(value, $0)) })
            } else if type == CGst_type_value_array(), let boxed = g_value_get_boxed(value) {
                let array = boxed.assumingMemoryBound(to: GValueArray.self).pointee
                self = .list((0..<Int(array.n_values)).map { Self(array.values.advanced(by: $0)) })
            } else if type == gst_structure_get_type(), let structure = gst_value_get_structure(value) {
                self = .structure(Structure(structure))
            } else if type == gst_bitmask_get_type() {
                self = .bitmask(UInt64(gst_value_get_bitmask(value)))
            } else if type == gst_fraction_get_type() {
                self = .fraction(
                    Int(gst_value_get_fraction_numerator(value)), Int(gst_value_get_fraction_denominator(value)))
            } else if type == gst_buffer_get_type(), let boxed = g_value_get_boxed(value) {
                let buffer = boxed.assumingMemoryBound(to: GstBuffer.self)
                var bytes = [UInt8](repeating: 0, count: Int(gst_buffer_get_size(buffer)))
                let copied = bytes.withUnsafeMutableBytes {
                    gst_buffer_extract(buffer, 0, $0.baseAddress, gsize($0.count))
                }
                self = .buffer(Array(bytes.prefix(Int(copied))))
            } else {
                let text = gst_value_serialize(mutable)
                defer { g_free(text) }
                self = .serialized(text.map { String(cString: $0) } ?? "")
            }
        }
    }
}
