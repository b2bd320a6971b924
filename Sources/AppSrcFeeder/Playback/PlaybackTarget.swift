// yt-gst — what a playback session plays through and controls: the player, or a test's stand-in.
import GstPlayer

/// The operations `PlaybackSession` asks of its player (all `Player`'s own), so that its decisions (what each
/// command does, how each pipeline's run ends) run the same against a test's recording stand-in on an embedded bus
/// and appsrc, without a pipeline or an audio output.
protocol PlaybackTarget: EventBus where Event == Message {
    /// Builds the pipeline ahead of the first play (a bad launch string fails before any file opens).
    func prepare() throws(GstError)
    /// Plays `feeder` through a pipeline built from `launch` (the target's own when nil), stopping what played.
    func play(_ feeder: some Feeder, launch: String?, from start: ClockTime?, to stop: ClockTime?) throws(GstError)
    func pause() throws(GstError)
    func resume() throws(GstError)
    /// Stops and releases the pipeline.
    func stop()
    func seek(to time: ClockTime, stop: ClockTime?, rate: Double, options: Pipeline.SeekOptions) throws(GstError)
    /// The stream position, when known.
    var position: ClockTime? { get }
    /// The state (NULL when nothing plays).
    var state: State { get }
    func setVolume(_ volume: Double) throws(GstError)
    func setMuted(_ muted: Bool) throws(GstError)
}

extension Player: PlaybackTarget {}
