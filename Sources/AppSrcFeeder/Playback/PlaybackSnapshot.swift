// yt-gst — what the player reports about playback at one moment.

/// Everything the status line and `--status json` report, sampled about 10 times a second.
struct PlaybackSnapshot {
    var state: String
    var file: String
    var index: Int
    var count: Int
    var position: Double
    var duration: Double
    var volume: Double
    var muted: Bool
    var rate: Double
    var loopA: Double?
    var loopB: Double?
    var levels: [ChannelLevel]
}
