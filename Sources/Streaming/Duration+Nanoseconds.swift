// yt-gst — a duration as the whole nanoseconds GStreamer's properties and atomics take.

extension Duration {
    /// The duration in whole nanoseconds (truncated).
    var wholeNanoseconds: Int64 { components.seconds * 1_000_000_000 + components.attoseconds / 1_000_000_000 }
}
