// yt-gst — the status line redrawn in place on a terminal.

/// One status line redrawn in place with a carriage return, cleared when playback ends.
struct StatusLine {
    let enabled: Bool
    private var drawn = false

    init(enabled: Bool) { self.enabled = enabled }

    mutating func draw(_ text: String) {
        guard enabled else { return }
        let width = max(Terminal.columns - 1, 10)
        let fitted = text.count > width ? String(text.prefix(width)) : text
        Terminal.write("\r\(fitted)\u{1B}[K")  // carriage return, text, clear to the end of the line
        drawn = true
    }

    /// Prints a line on stderr above the status line (the next status draws it again).
    mutating func say(_ line: String) {
        clear()
        Terminal.error(line)
    }

    /// Removes the line so the next output starts on a clean line.
    mutating func clear() {
        guard enabled, drawn else { return }
        Terminal.write("\r\u{1B}[K")
        drawn = false
    }
}
