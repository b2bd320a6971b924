// yt-gst — a volume in percent, as sliders and Snapcast's clients give it, and the gain it stands for.
import Glibc

/// A volume p in percent (0 to 100) stands for the linear gain (p/100)³: PulseAudio's cubic curve (mpv's too), so
/// that equal steps of a slider sound like equal steps of loudness.
public enum VolumePercent {
    public static let range = 0...100

    /// The linear gain of `percent` (kept within `range`).
    public static func gain(_ percent: Int) -> Double { pow(Double(min(max(percent, 0), 100)) / 100, 3) }

    /// The percent (rounded, within `range`) whose gain is `gain`.
    public static func percent(ofGain gain: Double) -> Int { Int((cbrt(min(max(gain, 0), 1)) * 100).rounded()) }
}
