// yt-gst — raw audio sample formats, by the names GStreamer gives them in caps.

/// The layout of one raw audio sample: signed or unsigned integer or float, its width, and its byte order.
///
/// Every format of GStreamer 1.22, so that the `format` field of any raw audio caps a source gives reads as a
/// value (`Caps.format`); `rawValue` is GStreamer's name ("S16LE", "S24_32BE", "F64LE"). `S24_32` is 24 valid bits
/// in the low three bytes of four.
/// The corresponding C type is `GstAudioFormat` (names from `gst_audio_format_to_string`).
public enum AudioFormat: String, Sendable, CaseIterable {
    case s8 = "S8"
    case u8 = "U8"
    case s16LE = "S16LE"
    case s16BE = "S16BE"
    case u16LE = "U16LE"
    case u16BE = "U16BE"
    case s18LE = "S18LE"
    case s18BE = "S18BE"
    case u18LE = "U18LE"
    case u18BE = "U18BE"
    case s20LE = "S20LE"
    case s20BE = "S20BE"
    case u20LE = "U20LE"
    case u20BE = "U20BE"
    case s24LE = "S24LE"
    case s24BE = "S24BE"
    case u24LE = "U24LE"
    case u24BE = "U24BE"
    case s24_32LE = "S24_32LE"
    case s24_32BE = "S24_32BE"
    case u24_32LE = "U24_32LE"
    case u24_32BE = "U24_32BE"
    case s32LE = "S32LE"
    case s32BE = "S32BE"
    case u32LE = "U32LE"
    case u32BE = "U32BE"
    case f32LE = "F32LE"
    case f32BE = "F32BE"
    case f64LE = "F64LE"
    case f64BE = "F64BE"
}

extension AudioFormat: CustomStringConvertible {
    /// GStreamer's name, as messages show it ("S16LE").
    public var description: String { rawValue }
}
