// yt-gst — what a stream or a broadcast can be told, from any thread.
import GstPlayer
import Streaming
import WAV

/// A command to a `StreamSession` or a `BroadcastSession` (each says what it does with it).
enum SendCommand: Sendable {
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
struct SendControl: Sendable {
    let queue: CommandQueue<SendCommand>
    func send(_ command: SendCommand) { queue.send(command) }
    func pause() { send(.pause) }
    func resume() { send(.resume) }
    func next() { send(.next) }
    func previous() { send(.previous) }
    func stop(_ reason: StopReason = .requested) { send(.stop(reason)) }
}
