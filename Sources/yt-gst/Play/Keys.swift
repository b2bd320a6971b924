// yt-gst — what each key does during playback (a pure map, in the spirit of gst-play and mpv).

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
