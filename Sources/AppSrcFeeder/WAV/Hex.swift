// yt-gst — hex and quoting for one-line messages.

/// Small formatting helpers for messages.
enum Hex {
    /// Lower-case hex of `value`, zero-padded to `count` digits.
    static func digits(_ value: UInt64, count: Int) -> String {
        let text = String(value, radix: 16)
        return String(repeating: "0", count: max(0, count - text.count)) + text
    }

    /// "0x0011": the form format tags take in messages.
    static func tag(_ value: UInt16) -> String { "0x" + digits(UInt64(value), count: 4).uppercased() }

    /// Bytes as a quoted Swift-style literal: printable ASCII as is, `\"` and `\\` escaped, anything else `\u{3}`.
    static func quoted(_ bytes: [UInt8]) -> String {
        var text = "\""
        for byte in bytes {
            switch byte {
            case 0x22: text += "\\\""
            case 0x5C: text += "\\\\"
            case 0x20...0x7E: text.append(Character(Unicode.Scalar(byte)))
            default: text += "\\u{" + String(byte, radix: 16) + "}"
            }
        }
        return text + "\""
    }
}
