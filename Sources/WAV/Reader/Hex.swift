// yt-gst — hex and quoting for one-line messages.

/// Small formatting helpers for messages.
enum Hex {
    /// Lower-case hex of `value`, zero-padded to `count` digits.
    static func digits(_ value: UInt64, count: Int) -> String {
        let text = String(value, radix: 16)
        return String(repeating: "0", count: max(0, count - text.count)) + text
    }

    /// A GUID as text, lower case: the 32-bit and two 16-bit fields in `byteOrder`, then eight bytes as stored.
    static func guid(_ bytes: [UInt8], at index: Int, byteOrder: ByteOrder) -> String {
        [
            digits(UInt64(byteOrder.uint32(bytes, at: index)), count: 8),
            digits(UInt64(byteOrder.uint16(bytes, at: index + 4)), count: 4),
            digits(UInt64(byteOrder.uint16(bytes, at: index + 6)), count: 4),
            bytes[index + 8..<index + 10].map { digits(UInt64($0), count: 2) }.joined(),
            bytes[index + 10..<index + 16].map { digits(UInt64($0), count: 2) }.joined(),
        ].joined(separator: "-")
    }

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
