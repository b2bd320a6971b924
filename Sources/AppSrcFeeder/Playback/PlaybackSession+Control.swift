// yt-gst — the commands a playback session takes, from any thread.
import GstPlayer

extension PlaybackSession {
    /// What a caller asks the session to do; see the methods of `Control`.
    public enum Command: Sendable, Equatable {
        case pause, resume, togglePause
        /// To this many seconds into the playing file (within the A-B loop while there is one).
        case seek(Double)
        /// By this many seconds from the current position; past the end of the file (or `end`) is the next file.
        case seekRelative(Double)
        case next, previous
        /// To the file at this index of the list (in the pass that plays).
        case jump(Int)
        case setVolume(Double)
        /// By this many percent points (a volume key).
        case adjustVolume(percent: Int)
        case setMute(Bool)
        case toggleMute
        case setRate(Double)
        /// To the next faster (+1) or slower (-1) of the usual rates: 0.25, 0.5, 0.75, 0.9, 1, 1.1, ... 4.
        case stepRate(Int)
        /// Sets A, then B (and loops between them), then clears the A-B loop.
        case setLoopPoint
        /// Files to play: instead of the list, from the first of them at once (`replace`), or after the list.
        case load([String], replace: Bool)
        /// Each file repeats (`Configuration.repeatEachFile`) or not, from the end of the playing one.
        case setLoopFile(Bool)
        /// Passes through the list from the playing one's on (nil: for ever, 1: this is the last).
        case setLoopPlaylist(passes: Int?)
        /// What follows the playing file in a random order or as given.
        case setShuffle(Bool)
        case stop(StopReason)
        /// `.status` events this often (a control surface that shows the position), besides the configuration's;
        /// nil: only the configuration's.
        case reportStatus(every: Duration?)
    }

    /// Sends commands to a session from any thread; each is run on the session's thread at its next turn, at once
    /// (sending wakes it).
    public struct Control: Sendable {
        let commands: CommandQueue<Command>

        public func send(_ command: Command) { commands.send(command) }
        public func pause() { send(.pause) }
        public func resume() { send(.resume) }
        public func togglePause() { send(.togglePause) }
        public func seek(to seconds: Double) { send(.seek(seconds)) }
        public func seek(by seconds: Double) { send(.seekRelative(seconds)) }
        public func next() { send(.next) }
        public func previous() { send(.previous) }
        public func jump(to index: Int) { send(.jump(index)) }
        public func setVolume(_ volume: Double) { send(.setVolume(volume)) }
        public func setMute(_ muted: Bool) { send(.setMute(muted)) }
        public func setRate(_ rate: Double) { send(.setRate(rate)) }
        public func setLoopPoint() { send(.setLoopPoint) }
        public func load(_ files: [String], replace: Bool) { send(.load(files, replace: replace)) }
        public func setLoopFile(_ on: Bool) { send(.setLoopFile(on)) }
        public func setLoopPlaylist(passes: Int?) { send(.setLoopPlaylist(passes: passes)) }
        public func setShuffle(_ on: Bool) { send(.setShuffle(on)) }
        public func stop(_ reason: StopReason = .requested) { send(.stop(reason)) }
        public func reportStatus(every interval: Duration?) { send(.reportStatus(every: interval)) }
    }
}
