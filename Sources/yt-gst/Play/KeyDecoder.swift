// yt-gst — raw terminal bytes decoded into keys.

/// Turns raw terminal bytes into keys, including the escape sequences of arrows, Shift+arrows and PgUp/PgDn.
struct KeyDecoder {
    private var pending: [UInt8] = []

    /// Decodes what has arrived. `complete` says no more bytes are waiting, so a lone ESC is the Esc key.
    mutating func feed(_ bytes: [UInt8], complete: Bool = true) -> [Key] {
        pending += bytes
        var keys: [Key] = []
        while !pending.isEmpty {
            if pending[0] == 0x1B {
                guard pending.count > 1 else {
                    if complete {
                        keys.append(.escape)
                        pending.removeAll()
                    }
                    break
                }
                guard pending[1] == UInt8(ascii: "[") || pending[1] == UInt8(ascii: "O") else {
                    keys.append(.escape)
                    pending.removeFirst()
                    continue
                }
                // CSI: parameters then one final byte in 0x40...0x7E.
                guard let end = pending.dropFirst(2).firstIndex(where: { (0x40...0x7E).contains($0) }) else {
                    if complete { pending.removeAll() }
                    break
                }
                let sequence = String(decoding: pending[2...end], as: UTF8.self)
                pending.removeFirst(end + 1)
                if let key = Self.csiKeys[sequence] { keys.append(key) }
                continue
            }
            let byte = pending.removeFirst()
            switch byte {
            case 0x0A, 0x0D: keys.append(.enter)
            case 0x7F, 0x08: keys.append(.backspace)
            case 0x20...0x7E: keys.append(.char(Character(Unicode.Scalar(byte))))
            default: break
            }
        }
        return keys
    }

    private static let csiKeys: [String: Key] = [
        "A": .up, "B": .down, "C": .right, "D": .left,
        "1;2C": .shiftRight, "1;2D": .shiftLeft, "5~": .pageUp, "6~": .pageDown,
    ]
}
