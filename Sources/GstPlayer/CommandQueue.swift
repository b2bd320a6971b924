// yt-gst — commands sent to a session from any thread, run by the session on its loop.
import Synchronization

/// The commands a session has been sent and not yet run.
///
/// Any thread (a control socket's, a D-Bus handler's, the terminal's) sends; the session takes them at each turn of
/// its loop, on its own thread, so its state is only ever touched there. Sending wakes the loop
/// (`MainLoop.wake()`), so a command is run at once, not at the next status tick.
public final class CommandQueue<Command: Sendable>: Sendable {
    private let pending = Mutex<[Command]>([])

    public init() {}

    /// Queues `command` for the session and wakes its loop.
    public func send(_ command: Command) {
        pending.withLock { $0.append(command) }
        MainLoop.wake()
    }

    /// The commands sent since the last call, oldest first.
    public func take() -> [Command] {
        pending.withLock { commands in
            defer { commands.removeAll() }
            return commands
        }
    }
}
