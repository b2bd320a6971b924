// yt-gst — what a stream or a broadcast can be told, from any thread.
import GstPlayer
import WAV

/// A command to a `StreamSession` or a `BroadcastSession` (each says what it does with it).
public enum SendCommand: Sendable {
    /// Holds the place until `resume`.
    case pause
    case resume
    /// The next (previous) file of the list from its start; past the last one, the session ends.
    case next
    case previous
    /// Ends the session.
    case stop(StopReason)
}

/// Sends commands to a running session from any thread; each wakes its loop.
public struct SendControl: Sendable {
    let queue: CommandQueue<SendCommand>
    public func send(_ command: SendCommand) { queue.send(command) }
    public func pause() { send(.pause) }
    public func resume() { send(.resume) }
    public func next() { send(.next) }
    public func previous() { send(.previous) }
    public func stop(_ reason: StopReason = .requested) { send(.stop(reason)) }
}
