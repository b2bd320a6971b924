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
        rawValue = bytes[index..<index + 4].reduce(0) { $0 << 8 | UInt32($1) }
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

    private var bytes: [UInt8] { [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: rawValue >> $0) } }

    /// All four bytes are printable ASCII (space through tilde), as every real chunk id is.
    ///
    /// The walker uses this to tell a chunk header from garbage, so it stays deliberately simple.
    var isPrintable: Bool { bytes.allSatisfy { (0x20...0x7E).contains($0) } }

    /// The id as text when printable, else "0x" and eight hex digits.
    var display: String {
        isPrintable ? String(decoding: bytes, as: UTF8.self) : "0x" + Hex.digits(UInt64(rawValue), count: 8)
    }
}
