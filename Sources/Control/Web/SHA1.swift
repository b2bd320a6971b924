// yt-gst — SHA-1 (FIPS 180-4) and base64 (RFC 4648), the two hashes a WebSocket handshake needs.

/// SHA-1 of a short message: only the WebSocket handshake uses it (RFC 6455 names it; no security rests on it here),
/// so it is written for clarity, not speed.
enum SHA1 {
    static func digest(_ message: [UInt8]) -> [UInt8] {
        var state: [UInt32] = [0x6745_2301, 0xEFCD_AB89, 0x98BA_DCFE, 0x1032_5476, 0xC3D2_E1F0]
        var padded = message + [0x80]
        while padded.count % 64 != 56 { padded.append(0) }
        let bits = UInt64(message.count) * 8
        padded += (0..<8).map { UInt8(truncatingIfNeeded: bits >> (56 - 8 * UInt64($0))) }
        for start in stride(from: 0, to: padded.count, by: 64) {
            compress(&state, padded[start..<start + 64])
        }
        return state.flatMap { word in (0..<4).map { UInt8(truncatingIfNeeded: word >> (24 - 8 * UInt32($0))) } }
    }

    /// One 64-byte block into the running state.
    private static func compress(_ state: inout [UInt32], _ block: ArraySlice<UInt8>) {
        var w = [UInt32](repeating: 0, count: 80)
        for i in 0..<16 {
            let base = block.startIndex + 4 * i
            w[i] = block[base..<base + 4].reduce(0) { $0 << 8 | UInt32($1) }
        }
        for i in 16..<80 { w[i] = rotate(w[i - 3] ^ w[i - 8] ^ w[i - 14] ^ w[i - 16], 1) }
        var (a, b, c, d, e) = (state[0], state[1], state[2], state[3], state[4])
        for i in 0..<80 {
            let (f, k): (UInt32, UInt32) =
                switch i {
                case 0..<20: ((b & c) | (~b & d), 0x5A82_7999)
                case 20..<40: (b ^ c ^ d, 0x6ED9_EBA1)
                case 40..<60: ((b & c) | (b & d) | (c & d), 0x8F1B_BCDC)
                default: (b ^ c ^ d, 0xCA62_C1D6)
                }
            let t = rotate(a, 5) &+ f &+ e &+ k &+ w[i]
            (e, d, c, b, a) = (d, c, rotate(b, 30), a, t)
        }
        for (index, value) in [a, b, c, d, e].enumerated() { state[index] = state[index] &+ value }
    }

    private static func rotate(_ x: UInt32, _ n: UInt32) -> UInt32 { x << n | x >> (32 - n) }
}

enum Base64 {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

    /// Standard base64 with `=` padding.
    static func encode(_ bytes: [UInt8]) -> String {
        var out: [UInt8] = []
        for start in stride(from: 0, to: bytes.count, by: 3) {
            let chunk = bytes[start..<min(start + 3, bytes.count)]
            let value = chunk.enumerated().reduce(UInt32(0)) { $0 | UInt32($1.element) << (16 - 8 * UInt32($1.offset)) }
            for index in 0..<4 {
                out.append(index <= chunk.count ? alphabet[Int(value >> (18 - 6 * UInt32(index)) & 0x3F)] : 0x3D)
            }
        }
        return String(decoding: out, as: UTF8.self)
    }
}
