// yt-gst — one channel's peak and RMS from the level element.
import GstPlayer

/// Peak and RMS of one channel in dBFS, from the level element.
public struct ChannelLevel: Sendable, Equatable {
    public var peak: Double
    public var rms: Double

    public init(peak: Double, rms: Double) {
        self.peak = peak
        self.rms = rms
    }

    /// The readings of a `level` element message: one peak and one RMS per channel.
    public static func parse(_ structure: Structure) -> [ChannelLevel]? {
        guard structure.name == "level", let rms = structure.numbers("rms"), let peak = structure.numbers("peak"),
            rms.count == peak.count
        else { return nil }
        return zip(peak, rms).map { ChannelLevel(peak: $0, rms: $1) }
    }
}
