// yt-gst — keys from a raw terminal, and what each one does (a pure map, in the spirit of gst-play and mpv).

/// A key press decoded from terminal input.
enum Key: Equatable {
    case char(Character)
    case left, right, up, down
    case shiftLeft, shiftRight, pageUp, pageDown
    case escape, enter, backspace
}

/// What a key asks the player to do.
enum PlayerAction: Equatable {
    case togglePause
    /// Relative seek in seconds.
    case seek(Double)
    /// Back to the start of the file.
    case restart
    /// Volume change in percent points.
    case volume(Int)
    case toggleMute
    /// One step faster (+1) or slower (-1), pitch kept.
    case rate(Int)
    case next, previous
    /// Set A, then B, then clear the A-B loop.
    case loopPoint
    /// Start typing a time for an absolute seek.
    case beginGoto
    case showKeys
    case quit
}

enum Keys {
    /// The action of a key during playback.
    static func action(for key: Key) -> PlayerAction? {
        switch key {
        case .char(" "): .togglePause
        case .left: .seek(-5)
        case .right: .seek(5)
        case .shiftLeft, .pageDown: .seek(-60)
        case .shiftRight, .pageUp: .seek(60)
        case .down: .volume(-5)
        case .up: .volume(5)
        case .char("m"): .toggleMute
        case .char("+"), .char("="): .rate(1)
        case .char("-"), .char("_"): .rate(-1)
        case .char("0"): .restart
        case .char("n"), .char(">"): .next
        case .char("p"), .char("<"): .previous
        case .char("l"): .loopPoint
        case .char("g"): .beginGoto
        case .char("k"), .char("?"): .showKeys
        case .char("q"), .escape: .quit
        default: nil
        }
    }

    /// The key list printed by `k` / `?` and in `play --help`.
    static let help = """
        KEYS (on a terminal):
          space          pause / resume
          left / right   seek -5 s / +5 s      shift+left/right, PgDn/PgUp: -60 s / +60 s
          down / up      volume -5 % / +5 %    m: mute
          - / +          slower / faster (pitch kept)
          0              back to the start     g: go to a time (1:23 or 83.5), then Enter
          p or < / n or >  previous / next file
          l              A-B loop: set A, set B, clear
          k or ?         show these keys       q or Esc: quit
        """
}

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

/// Parses times typed by users or given with --start/--end: "83.5", "1:23", "1:02:03.5".
enum TimeText {
    static func seconds(_ text: String) -> Double? {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard (1...3).contains(parts.count) else { return nil }
        var total = 0.0
        for (index, part) in parts.enumerated() {
            guard let value = Double(part), value >= 0, value.isFinite else { return nil }
            if index < parts.count - 1 && (value != value.rounded() || (index > 0 && value >= 60)) { return nil }
            if index == parts.count - 1 && parts.count > 1 && value >= 60 { return nil }
            total = total * 60 + value
        }
        return total
    }

    /// "m:ss" or "h:mm:ss" for whole seconds.
    static func format(_ seconds: Double) -> String {
        let whole = Int(max(0, seconds))
        let (h, m, s) = (whole / 3600, whole / 60 % 60, whole % 60)
        let mm = h > 0 && m < 10 ? "0\(m)" : "\(m)"
        let ss = s < 10 ? "0\(s)" : "\(s)"
        return h > 0 ? "\(h):\(mm):\(ss)" : "\(mm):\(ss)"
    }
}
