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
        case stop(StopReason)
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
        public func stop(_ reason: StopReason = .requested) { send(.stop(reason)) }
    }
}
