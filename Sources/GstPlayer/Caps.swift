// yt-gst — caps: a stream's format as GStreamer negotiates it, a media type with typed fields.
internal import CGStreamer

/// The format of a stream as elements negotiate it: a media type ("audio/x-raw", "audio/x-alaw", "audio/mpeg")
/// and typed fields (sample format, rate, channels, codec fields such as `block_align` or `mpegversion`).
///
/// One structure, as the fixed caps of an appsrc, an appsink sample or a decoder query are. Build caps with
/// `rawAudio(format:rate:channels:layout:channelMask:)` or `init(mediaType:fields:)`, read them with the typed
/// accessors, and print them with `description`, which writes GStreamer's caps syntax in Swift (no GStreamer call),
/// so code that never touches GStreamer (`EmbeddedAppSource`, tests) can show them. `init(parsing:)` reads caps text.
///
/// Equality is GStreamer's: the same media type and the same fields with equal values, in any order.
/// The corresponding C type is `GstCaps` holding one `GstStructure`.
public struct Caps: Sendable, Equatable, CustomStringConvertible {
    /// The media type, e.g. "audio/x-raw" (the structure's name).
    public var mediaType: String
    /// The fields in their order; names are unique.
    public private(set) var fields: [(name: String, value: Structure.Value)]

    /// Caps of `mediaType` with `fields`, in order; a later field of the same name replaces an earlier one.
    public init(mediaType: String, fields: [(name: String, value: Structure.Value)] = []) {
        self.mediaType = mediaType
        self.fields = []
        for field in fields { self[field.name] = field.value }
    }

    /// Caps for interleaved (or `layout`) raw audio, as an appsrc announces PCM: `channelMask` is the channel
    /// positions (bit n = `GstAudioChannelPosition` n), left out when nil.
    public static func rawAudio(
        format: AudioFormat, rate: Int, channels: Int, layout: String = "interleaved", channelMask: UInt64? = nil
    ) -> Caps {
        var fields: [(name: String, value: Structure.Value)] = [
            ("format", .string(format.rawValue)), ("layout", .string(layout)), ("rate", .int(Int64(rate))),
            ("channels", .int(Int64(channels))),
        ]
        if let channelMask { fields.append(("channel-mask", .bitmask(channelMask))) }
        return Caps(mediaType: "audio/x-raw", fields: fields)
    }

    /// The field of this name; setting replaces it in place or appends it, setting nil removes it.
    public subscript(_ field: String) -> Structure.Value? {
        get { fields.first { $0.name == field }?.value }
        set {
            let index = fields.firstIndex { $0.name == field }
            switch (index, newValue) {
            case (let index?, let value?): fields[index].value = value
            case (let index?, nil): fields.remove(at: index)
            case (nil, let value?): fields.append((field, value))
            case (nil, nil): break
            }
        }
    }

    /// The field of this name (the same as the subscript), for codec fields such as "block_align".
    public func value(_ field: String) -> Structure.Value? { self[field] }

    /// An integer field (`int` or `uint`), e.g. "block_align", "mpegversion"; nil when absent or of another type.
    public func int(_ field: String) -> Int? {
        switch self[field] {
        case .int(let value)?: Int(exactly: value)
        case .uint(let value)?: Int(exactly: value)
        default: nil
        }
    }

    /// A string field, e.g. "layout" of ADPCM ("microsoft", "dvi"); nil when absent or of another type.
    public func string(_ field: String) -> String? {
        if case .string(let value)? = self[field] { return value }
        return nil
    }

    /// The sample format of raw audio, the `format` field; nil when absent or not a raw audio format (an encoded
    /// stream's caps may use the field for something else).
    public var format: AudioFormat? { string("format").flatMap(AudioFormat.init(rawValue:)) }
    /// Samples per second, the `rate` field.
    public var rate: Int? { int("rate") }
    /// The channel count, the `channels` field.
    public var channels: Int? { int("channels") }
    /// How channels are laid out ("interleaved", "non-interleaved"), or a codec's variant ("microsoft" for
    /// MS ADPCM): the `layout` field.
    public var layout: String? { string("layout") }
    /// The channel positions (bit n = `GstAudioChannelPosition` n), the `channel-mask` field.
    public var channelMask: UInt64? {
        if case .bitmask(let mask)? = self["channel-mask"] { return mask }
        return nil
    }

    /// GStreamer's caps syntax, as `gst_caps_to_string` writes it:
    /// "audio/x-raw, format=(string)S16LE, layout=(string)interleaved, rate=(int)44100, channels=(int)2".
    public var description: String {
        ([mediaType] + fields.map { "\($0.name)=\($0.value.typedText)" }).joined(separator: ", ")
    }

    /// Same media type and same fields with equal values, in any order (as `gst_caps_is_equal` for fixed caps).
    public static func == (lhs: Caps, rhs: Caps) -> Bool {
        lhs.mediaType == rhs.mediaType && lhs.fields.count == rhs.fields.count
            && lhs.fields.allSatisfy { rhs[$0.name] == $0.value }
    }
}

extension Caps {
    /// Reads caps text, e.g. "audio/x-raw,format=S16LE,rate=44100,channels=2": the first structure, with its fields
    /// typed as GStreamer reads them (an unmarked `rate=44100` is an `int`).
    ///
    /// - Throws: `.invalidValue` when the text does not parse or holds no structure (`ANY`, `EMPTY`).
    /// The corresponding C function is `gst_caps_from_string`.
    public init(parsing text: String) throws(GstError) {
        Gst.initialize()
        guard let caps = gst_caps_from_string(text) else {
            throw GstError(kind: .invalidValue, message: "invalid caps \"\(text)\"")
        }
        defer { gst_caps_unref(caps) }
        guard let copied = Caps(caps) else {
            throw GstError(kind: .invalidValue, message: "caps \"\(text)\" hold no structure")
        }
        self = copied
    }

    /// Copies the first structure of caps GStreamer still owns; nil when there is none (`ANY`, `EMPTY`).
    init?(_ caps: UnsafePointer<GstCaps>) {
        guard gst_caps_is_any(caps) == 0, gst_caps_get_size(caps) > 0,
            let first = gst_caps_get_structure(caps, 0)
        else { return nil }
        let structure = Structure(first)
        self.init(mediaType: structure.name, fields: structure.fields)
    }

    /// New caps (transfer full: the caller unrefs them) that hold this value, made from `description`.
    ///
    /// - Throws: `.invalidValue` when GStreamer does not take the text (a media type or field name it rejects).
    func makeGstCaps() throws(GstError) -> UnsafeMutablePointer<GstCaps> {
        Gst.initialize()
        guard let caps = gst_caps_from_string(description) else {
            throw GstError(kind: .invalidValue, message: "invalid caps \"\(description)\"")
        }
        return caps
    }
}

extension Structure.Value {
    /// The value as caps text writes it, without its type: "S16LE", "44100", "0x0000000000000003", "{ 1, 2 }";
    /// strings quoted and escaped where GStreamer would.
    ///
    /// The corresponding C function is `gst_value_serialize` (this one is Swift only).
    public var text: String {
        switch self {
        case .bool(let value): "\(value)"
        case .int(let value): "\(value)"
        case .uint(let value): "\(value)"
        case .double(let value): "\(value)"
        case .string(let value): Self.wrapped(value)
        case .bitmask(let value): "0x" + Self.hex(value, digits: 16)
        case .fraction(let numerator, let denominator): "\(numerator)/\(denominator)"
        case .buffer(let bytes): bytes.map { Self.hex(UInt64($0), digits: 2) }.joined()
        case .list(let values): "{ " + values.map(\.text).joined(separator: ", ") + " }"
        case .structure(let structure):
            Self.wrapped(
                ([structure.name] + structure.fields.map { "\($0.name)=\($0.value.typedText)" })
                    .joined(separator: ", ") + ";")
        case .serialized(let text): text
        }
    }

    /// GStreamer's name for the value's type in caps text ("int", "string", "bitmask"); nil for a list (whose
    /// elements carry their own) and for a `.serialized` value, whose type is unknown.
    var typeName: String? {
        switch self {
        case .bool: "boolean"
        case .int(let value): Int32(exactly: value) != nil ? "int" : "gint64"
        case .uint(let value): UInt32(exactly: value) != nil ? "uint" : "guint64"
        case .double: "double"
        case .string: "string"
        case .bitmask: "bitmask"
        case .fraction: "fraction"
        case .buffer: "buffer"
        case .structure: "structure"
        case .list, .serialized: nil
        }
    }

    /// The value with its type, as a field of caps text: "(int)44100", "(string)S16LE",
    /// "(bitmask)0x0000000000000003". A list gives each element its type; a `.serialized` value goes without one
    /// (GStreamer then guesses it when parsing).
    var typedText: String {
        if case .list(let values) = self { return "{ " + values.map(\.typedText).joined(separator: ", ") + " }" }
        return typeName.map { "(\($0))" + text } ?? text
    }

    /// Lower-case hexadecimal, zero-padded to `digits`.
    private static func hex(_ value: UInt64, digits: Int) -> String {
        let text = String(value, radix: 16)
        return String(repeating: "0", count: max(0, digits - text.count)) + text
    }

    /// A string as GStreamer writes it in caps (`gst_string_wrap` in gstvalue.c): as is when every byte is a
    /// letter, a digit or one of `_-+/:.`; else in double quotes, other printable ASCII after a backslash and any
    /// other byte as a backslash and three octal digits. The empty string and "NULL" are quoted too.
    static func wrapped(_ text: String) -> String {
        func isPlain(_ byte: UInt8) -> Bool {
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                UInt8(ascii: "A")...UInt8(ascii: "Z"):
                true
            default: "_-+/:.".utf8.contains(byte)
            }
        }
        guard text.isEmpty || text == "NULL" || !text.utf8.allSatisfy(isPlain) else { return text }
        var quoted = "\""
        for byte in text.utf8 {
            if isPlain(byte) {
                quoted.unicodeScalars.append(Unicode.Scalar(byte))
            } else if byte < 0x20 || byte >= 0x7F {
                quoted += "\\" + String(byte >> 6) + String((byte >> 3) & 7) + String(byte & 7)
            } else {
                quoted += "\\" + String(Unicode.Scalar(byte))
            }
        }
        return quoted + "\""
    }
}
