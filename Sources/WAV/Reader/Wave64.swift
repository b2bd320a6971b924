// yt-gst — Sony Wave64 chunk ids: 16-byte GUIDs whose first four bytes spell the RIFF id they stand for.

/// GUID chunk ids of Sony Wave64 (.w64) files.
///
/// Every id libsndfile and Sony write is a RIFF four-character code in the GUID's first field, followed by one of
/// two fixed tails: `-912E/912F-11CF-A5D6-28DB04C10000` (riff, list) or `-ACF3-11D3-8CD1-00C04F8EDB8A` (wave, fmt,
/// data, fact, bext, junk, ...). Such ids map to their `FourCC`; any other GUID is shown as a GUID.
enum Wave64 {
    /// GUID bytes 4..<16 (in file order) of the two id families.
    private static let tails: [[UInt8]] = [
        [0x2E, 0x91, 0xCF, 0x11, 0xA5, 0xD6, 0x28, 0xDB, 0x04, 0xC1, 0x00, 0x00],
        [0x2F, 0x91, 0xCF, 0x11, 0xA5, 0xD6, 0x28, 0xDB, 0x04, 0xC1, 0x00, 0x00],
        [0xF3, 0xAC, 0xD3, 0x11, 0x8C, 0xD1, 0x00, 0xC0, 0x4F, 0x8E, 0xDB, 0x8A],
    ]

    /// The four-character id of the GUID at `index` (16 bytes must be there), or nil for an unknown GUID.
    static func fourCC(_ bytes: [UInt8], at index: Int) -> FourCC? {
        guard index + 16 <= bytes.count else { return nil }
        let tail = Array(bytes[index + 4..<index + 16])
        guard tails.contains(tail) else { return nil }
        return FourCC(bytes, at: index)
    }

    /// The 16 bytes of a known id, for writing Wave64 files in tests.
    static func guid(_ id: FourCC) -> [UInt8] {
        let head = [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: id.rawValue >> UInt32($0)) }
        let tail = id == FourCC("riff") ? tails[0] : id == FourCC("list") ? tails[1] : tails[2]
        return head + tail
    }

    /// How `info` names a chunk: its id when the GUID is a known one, else "{GUID}".
    static func display(_ header: [UInt8]) -> String {
        fourCC(header, at: 0)?.display ?? "{" + guidText(header, at: 0) + "}"
    }

    /// A GUID in its usual text form (first three fields little-endian).
    static func guidText(_ bytes: [UInt8], at index: Int) -> String {
        guard index + 16 <= bytes.count else { return "?" }
        return Hex.guid(bytes, at: index, byteOrder: .little).uppercased()
    }
}
