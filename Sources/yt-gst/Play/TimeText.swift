// yt-gst — times as users type them and as the player shows them.

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
