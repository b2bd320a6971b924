// yt-gst — each kind of pipeline warning reported once.
import GstPlayer

/// Lets each kind of warning through once: udpsink, for one, warns for every packet the network refuses.
public struct WarningFilter: Sendable {
    private var seen: Set<String> = []

    public init() {}

    /// Whether `warning` is the first of its kind (its one-line description).
    public mutating func isNew(_ warning: GstError) -> Bool { seen.insert(warning.description).inserted }
}
