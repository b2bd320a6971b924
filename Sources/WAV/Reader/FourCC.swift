// yt-gst — four-character chunk and form ids.

/// A RIFF four-character code, kept as its four bytes in file order (big-endian in `rawValue`).
///
/// Ids are bytes, not text: RIFX does not swap them, and a damaged file may hold any bytes where an id should be.
struct FourCC: Hashable, Sendable {
    let rawValue: UInt32

    init(_ text: StaticString) {
        precondition(text.utf8CodeUnitCount == 4, "a FourCC has four characters")
        let p = text.utf8Start
        rawValue = UInt32(p[0]) << 24 | UInt32(p[1]) << 16 | UInt32(p[2]) << 8 | UInt32(p[3])
    }

    /// The id at `index` of `bytes`, which must hold four bytes there.
    init(_ bytes: [UInt8], at index: Int = 0) {
        rawValue =
            UInt32(bytes[index]) << 24 | UInt32(bytes[index + 1]) << 16 | UInt32(bytes[index + 2]) << 8
            | UInt32(bytes[index + 3])
    }

    static let riff = FourCC("RIFF")
    static let rifx = FourCC("RIFX")
    static let rf64 = FourCC("RF64")
    static let bw64 = FourCC("BW64")
    static let wave = FourCC("WAVE")
    static let fmt = FourCC("fmt ")
    static let data = FourCC("data")
    static let fact = FourCC("fact")
    static let ds64 = FourCC("ds64")
    static let smpl = FourCC("smpl")

    private var bytes: [UInt8] {
        [
            UInt8(truncatingIfNeeded: rawValue >> 24), UInt8(truncatingIfNeeded: rawValue >> 16),
            UInt8(truncatingIfNeeded: rawValue >> 8), UInt8(truncatingIfNeeded: rawValue),
        ]
    }

    /// All four bytes are printable ASCII (space through tilde), as every real chunk id is.
    ///
    /// The walker uses this to tell a chunk header from garbage, so it stays deliberately simple (and, asked of up
    /// to `WAVParser.maxChunks` chunks, cheap).
    var isPrintable: Bool {
        Self.isPrintable(rawValue >> 24) && Self.isPrintable(rawValue >> 16 & 0xFF)
            && Self.isPrintable(rawValue >> 8 & 0xFF) && Self.isPrintable(rawValue & 0xFF)
    }

    private static func isPrintable(_ byte: UInt32) -> Bool { byte >= 0x20 && byte <= 0x7E }

    /// The id as text when printable, else "0x" and eight hex digits.
    var display: String {
        isPrintable ? String(decoding: bytes, as: UTF8.self) : "0x" + Hex.digits(UInt64(rawValue), count: 8)
    }
}
