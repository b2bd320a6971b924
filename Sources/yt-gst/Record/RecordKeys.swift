// yt-gst — what each key does while recording (a pure map, like `Keys` for playback).

enum RecordKeys {
    enum Action: Equatable {
        case togglePause, marker, quit, showKeys
    }

    static func action(for key: Key) -> Action? {
        switch key {
        case .char(" "): .togglePause
        case .char("m"): .marker
        case .char("q"), .escape: .quit
        case .char("k"), .char("?"): .showKeys
        default: nil
        }
    }

    static let help = """
        KEYS: space pause/resume (nothing written while paused), m marker, q or Esc stop, k keys
        """
}
