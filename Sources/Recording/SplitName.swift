// yt-gst — the names of split recordings: a counter and strftime fields in a pattern.
import Glibc

/// File names from a `--split` pattern: `%03d` (a `%`, digits, `d`) is the file's number, every other `%` field is
/// strftime's, at the time the file starts (memo-%Y%m%d-%H%M%S.wav, take-%03d.wav).
public enum SplitName {
    /// The name of file `number` (1, 2, ...) starting at `time`.
    public static func name(_ pattern: String, number: Int, time: time_t) -> String {
        var withCounter = ""
        var rest = Substring(pattern)
        while let percent = rest.firstIndex(of: "%") {
            withCounter += rest[..<percent]
            let after = rest[rest.index(after: percent)...]
            let digits = after.prefix { $0.isASCII && $0.isNumber }
            if !digits.isEmpty, after.dropFirst(digits.count).first == "d" {
                let text = String(number)
                let width = Int(digits) ?? 0
                let zeros = digits.first == "0" ? max(0, width - text.count) : 0
                withCounter += String(repeating: "0", count: zeros) + text
                rest = after.dropFirst(digits.count + 1)
            } else {
                withCounter += "%"
                rest = after
                if let next = rest.first {  // keep "%%" and the field letter together
                    withCounter.append(next)
                    rest = rest.dropFirst()
                }
            }
        }
        withCounter += rest
        return strftime(withCounter, time)
    }

    /// A pattern for `base` when it has no field at all: "take.wav" → "take-%03d.wav".
    public static func pattern(for base: String) -> String {
        guard !base.contains("%") else { return base }
        let slash = base.lastIndex(of: "/")
        if let dot = base.lastIndex(of: "."), slash.map({ dot > $0 }) ?? true, dot != base.startIndex {
            return base[..<dot] + "-%03d" + base[dot...]
        }
        return base + "-%03d"
    }

    private static func strftime(_ format: String, _ time: time_t) -> String {
        var time = time
        var parts = tm()
        localtime_r(&time, &parts)
        var buffer = [CChar](repeating: 0, count: 4_096)
        let count = Glibc.strftime(&buffer, buffer.count, format, &parts)
        guard count > 0 || format.isEmpty else { return format }
        return String(decoding: buffer[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
