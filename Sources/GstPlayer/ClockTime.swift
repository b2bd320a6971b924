// yt-gst — GStreamer time values (nanoseconds) and exact frame ↔ time conversion.
internal import CGStreamer

/// A GStreamer time in nanoseconds.
public struct ClockTime: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The time itself: GStreamer counts every time and duration in nanoseconds (`GstClockTime`).
    public var nanoseconds: UInt64

    /// A time given in nanoseconds.
    public init(nanoseconds: UInt64) { self.nanoseconds = nanoseconds }

    /// A time given in seconds, rounded to the nearest nanosecond; negative ones become zero.
    public init(seconds: Double) { self.nanoseconds = UInt64((max(seconds, 0) * 1e9).rounded()) }

    /// A Swift duration; negative ones become zero.
    public init(_ duration: Duration) {
        let (seconds, attoseconds) = duration.components
        guard seconds >= 0 else {
            self.nanoseconds = 0
            return
        }
        self.nanoseconds = UInt64(seconds) * 1_000_000_000 + UInt64(attoseconds / 1_000_000_000)
    }

    /// The start of a stream.
    public static let zero = ClockTime(nanoseconds: 0)

    /// The time at which frame `frames` starts at `rate` frames per second: frames × 10⁹ ÷ rate, rounded down,
    /// computed in 128 bits so nothing overflows and nothing accumulates.
    public init(frames: Int64, rate: Int) {
        precondition(frames >= 0 && rate > 0)
        let product = UInt64(frames).multipliedFullWidth(by: 1_000_000_000)
        self.nanoseconds = UInt64(rate).dividingFullWidth(product).quotient
    }

    /// The frame at or before this time at `rate` frames per second (the inverse of `init(frames:rate:)`).
    public func frames(rate: Int) -> Int64 {
        let product = nanoseconds.multipliedFullWidth(by: UInt64(rate))
        let (quotient, _) = UInt64(1_000_000_000).dividingFullWidth(product)
        return Int64(clamping: quotient)
    }

    /// The time in seconds, for display and arithmetic in floating point.
    public var seconds: Double { Double(nanoseconds) / 1e9 }

    var raw: GstClockTime { GstClockTime(nanoseconds) }

    /// Earlier times sort first.
    public static func < (lhs: ClockTime, rhs: ClockTime) -> Bool { lhs.nanoseconds < rhs.nanoseconds }

    /// "m:ss.t", or "h:mm:ss.t" from an hour on.
    public var description: String {
        let tenths = nanoseconds / 100_000_000
        let totalSeconds = tenths / 10
        let (hours, minutes, secs) = (totalSeconds / 3600, totalSeconds / 60 % 60, totalSeconds % 60)
        func two(_ value: UInt64) -> String { value < 10 ? "0\(value)" : "\(value)" }
        let tail = "\(two(secs)).\(tenths % 10)"
        return hours > 0 ? "\(hours):\(two(minutes)):\(tail)" : "\(minutes):\(tail)"
    }
}
