// yt-gst — what the player shows: the status line on a terminal, or one JSON object per line for programs.
import AppSrcFeeder

enum StatusView {
    /// The status line, fitted to `width` columns: less important parts go first when space is short.
    static func line(_ s: PlaybackSnapshot, width: Int) -> String {
        let symbol = s.state == .paused ? "||" : "> "
        let times = "\(TimeText.format(s.position)) / \(TimeText.format(s.duration))"
        let counter = s.count > 1 ? " (\(s.index + 1)/\(s.count))" : ""
        let volume = s.muted ? "muted" : "vol \(Int((s.volume * 100).rounded()))%"
        let rate = s.rate == 1 ? "" : " x\(trim(s.rate))"
        var loop = ""
        if let a = s.loopA { loop = " A=\(TimeText.format(a))" + (s.loopB.map { " B=\(TimeText.format($0))" } ?? "") }
        let meter = s.levels.map { "\(meterBar($0.peak))\(dB($0.rms))" }.joined(separator: " ")
        let name = s.file.split(separator: "/").last.map(String.init) ?? s.file
        let head = "\(symbol) \(times)"
        let tail = " \(volume)\(rate)\(loop)"
        // Priority: head, tail, name, meter, progress bar.
        var parts = [head, tail, "  " + name + counter]
        if !meter.isEmpty { parts.insert(" " + meter, at: 2) }
        var text = parts.joined()
        let barWidth = min(30, width - text.count - 3)
        if barWidth >= 8 {
            let filled = s.duration > 0 ? Int((s.position / s.duration * Double(barWidth)).rounded(.down)) : 0
            let bar =
                " [" + String(repeating: "=", count: min(filled, barWidth))
                + String(repeating: "-", count: max(0, barWidth - filled)) + "]"
            text = head + bar + parts.dropFirst().joined()
        }
        if text.count > width && !meter.isEmpty {
            text = [head, tail, "  " + name + counter].joined()
        }
        return text.count > width ? String(text.prefix(width)) : text
    }

    /// One JSON object for `--status json`.
    static func json(_ s: PlaybackSnapshot) -> String {
        var fields: [(String, String)] = [
            ("state", JSON.string(s.state.rawValue)), ("file", JSON.string(s.file)), ("index", "\(s.index + 1)"),
            ("count", "\(s.count)"), ("position", number(s.position)), ("duration", number(s.duration)),
            ("volume", number(s.volume)), ("muted", s.muted ? "true" : "false"), ("rate", number(s.rate)),
        ]
        fields.append(("loop", s.loopA.map { a in "[\(number(a)), \(s.loopB.map(number) ?? "null")]" } ?? "null"))
        let levels = s.levels.map { "{\"peak\": \(number($0.peak)), \"rms\": \(number($0.rms))}" }
        fields.append(("levels", "[" + levels.joined(separator: ", ") + "]"))
        return JSON.object(fields)
    }

    /// A finite number with 3 decimals (JSON has no infinity: silence is -200 dB).
    static func number(_ value: Double) -> String {
        let clamped = value.isFinite ? value : -200
        return trim((clamped * 1000).rounded() / 1000)
    }

    static func trim(_ value: Double) -> String {
        let text = "\(value)"
        return text.hasSuffix(".0") ? String(text.dropLast(2)) : text
    }

    static func dB(_ value: Double) -> String {
        guard value.isFinite, value > -100 else { return " -inf" }
        return " " + trim((value * 10).rounded() / 10)
    }

    /// Eight cells from -48 dBFS to 0.
    static func meterBar(_ peak: Double) -> String {
        let cells = peak.isFinite ? max(0, min(8, Int(((peak + 48) / 6).rounded(.down)))) : 0
        return "|" + String(repeating: "#", count: cells) + String(repeating: ".", count: 8 - cells) + "|"
    }
}
