// yt-gst — what a stream or a broadcast can be told, from any thread.
import GstPlayer
import WAV

/// A command to a `StreamSession` or a `BroadcastSession` (each says what it does with it).
public enum SendCommand: Sendable, Equatable {
    /// Holds the place until `resume`.
    case pause
    case resume
    /// The next (previous) file of the list from its start; past the last one, the session ends.
    case next
    case previous
    /// To this many seconds into the file going out; past its end, the next file (or the end).
    case seek(Double)
    /// By this many seconds from where the file going out is; past its end, the next file (or the end).
    case seekRelative(Double)
    /// What follows the file going out: each file again, the list again, or neither (see `LoopMode`).
    case setLoop(LoopMode)
    /// What follows the file going out, in a random order or as given.
    case setShuffle(Bool)
    /// The gain of what goes out, linear (0 silent, 1 as the files are).
    case setVolume(Double)
    /// Ends the session.
    case stop(StopReason)
}

/// How a list of files repeats, from the end of the file going out: `none` plays the rest once, `track` the file
/// again and again, `playlist` the whole list again and again (MPRIS's LoopStatus None, Track and Playlist).
public enum LoopMode: String, Sendable, Equatable, CaseIterable {
    case none, track, playlist
}

/// Sends commands to a running session from any thread; each wakes its loop.
public struct SendControl: Sendable {
    let queue: CommandQueue<SendCommand>
    public func send(_ command: SendCommand) { queue.send(command) }
    public func pause() { send(.pause) }
    public func resume() { send(.resume) }
    public func next() { send(.next) }
    public func previous() { send(.previous) }
    public func seek(to seconds: Double) { send(.seek(seconds)) }
    public func seek(by seconds: Double) { send(.seekRelative(seconds)) }
    public func setLoop(_ mode: LoopMode) { send(.setLoop(mode)) }
    public func setShuffle(_ on: Bool) { send(.setShuffle(on)) }
    public func setVolume(_ gain: Double) { send(.setVolume(gain)) }
    public func stop(_ reason: StopReason = .requested) { send(.stop(reason)) }
}
