// yt-gst — a small deterministic generator, so that tests with noise in them see the same noise in every run.

/// SplitMix64: a uniform number in [0, 1) per step.
public struct SplitMix: Sendable {
    var state: UInt64
    public init(seed: UInt64) { state = seed }

    public mutating func nextUnit() -> Double {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return Double((z ^ (z >> 31)) >> 11) / Double(1 << 53)
    }
}
