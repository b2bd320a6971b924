// yt-gst — what the player reports about playback at one moment.

/// Everything a status line or `--status json` reports, sent as `PlaybackSession.Event.status` at the rate the
/// configuration asks.
public struct PlaybackSnapshot: Sendable, Equatable {
    /// Whether the pipeline plays or holds (a status is only taken in one of the two).
    public enum State: String, Sendable {
        case playing, paused
    }

    public var state: State
    /// The playing file's path.
    public var file: String
    /// Its index in the list (0-based; a loop's later passes count from 0 again).
    public var index: Int
    /// Files in the list.
    public var count: Int
    /// Seconds into the file.
    public var position: Double
    /// The file's length in seconds; 0 when unknown (a pipe).
    public var duration: Double
    /// Linear volume, 1 = unchanged.
    public var volume: Double
    public var muted: Bool
    public var rate: Double
    /// The A-B loop's points in file seconds, as far as they are set.
    public var loopA: Double?
    public var loopB: Double?
    /// The level meter's last readings, one per channel (empty without a meter).
    public var levels: [ChannelLevel]

    public init(
        state: State, file: String, index: Int, count: Int, position: Double, duration: Double, volume: Double,
        muted: Bool, rate: Double, loopA: Double?, loopB: Double?, levels: [ChannelLevel]
    ) {
        self.state = state
        self.file = file
        self.index = index
        self.count = count
        self.position = position
        self.duration = duration
        self.volume = volume
        self.muted = muted
        self.rate = rate
        self.loopA = loopA
        self.loopB = loopB
        self.levels = levels
    }
}
