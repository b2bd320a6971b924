// yt-gst — the one loop every session runs: what is due, the commands, the bus, the turn's reports, then sleep.

/// What a session decides at each turn of `SessionLoop.run`; the loop only orders the turns and sleeps between them.
///
/// A turn calls `doWhatIsDue()`, `perform(_:)` for each command sent, `handle(_:)` for each message waiting on the
/// bus, then `finishTurn()`; the first that returns an ending (or throws) ends the loop. Then the loop sleeps until a
/// message, a command, a GLib source or `nextDue()` (never, when nil: zero wake-ups while idle).
public protocol SessionLoopHandler: AnyObject {
    /// The commands the session takes (from its `CommandQueue`).
    associatedtype Command: Sendable
    /// Why the loop ended.
    associatedtype Ending
    /// What ends the loop with an error.
    associatedtype Failure: Error

    /// Does what is due before the commands and the messages (a deadline reached, a step of ending, a check).
    func doWhatIsDue() throws(Failure) -> Ending?
    /// Runs one command.
    func perform(_ command: Command) throws(Failure) -> Ending?
    /// Answers one message from the bus.
    func handle(_ message: Message) throws(Failure) -> Ending?
    /// Does what follows the messages each turn (the status when due, an appsink's samples).
    func finishTurn() throws(Failure) -> Ending?
    /// When something is due next; nil when nothing is (only a message or a command wakes the loop).
    func nextDue() -> ContinuousClock.Instant?
}

extension SessionLoopHandler {
    public func doWhatIsDue() throws(Failure) -> Ending? { nil }
    public func finishTurn() throws(Failure) -> Ending? { nil }
}

/// The loop of every session (play, record, stream, receive, broadcast, HTTP receive), on the calling thread.
///
/// It reads `some EventBus<Message>` (a pipeline, a player, or a test's `EmbeddedBus`), so session logic runs the
/// same without a pipeline, and sleeps in `MainLoop.wait(for:until:)`, which also dispatches GLib's main context.
public enum SessionLoop {
    /// Runs turns until `handler` returns an ending (returned) or throws (rethrown).
    ///
    /// - Parameters:
    ///   - bus: where the messages come from; its descriptor is read at every turn (a player's changes with its
    ///     pipeline).
    ///   - commands: the session's queue; sending wakes the loop.
    ///   - first: commands taken before the loop (while the session waited for something), run at the first turn.
    public static func run<Handler: SessionLoopHandler>(
        _ handler: Handler, bus: some EventBus<Message>, commands: CommandQueue<Handler.Command>,
        first: [Handler.Command] = []
    ) throws(Handler.Failure) -> Handler.Ending {
        var taken = first
        while true {
            if let ending = try handler.doWhatIsDue() { return ending }
            taken += commands.take()
            for command in taken {
                if let ending = try handler.perform(command) { return ending }
            }
            taken = []
            while let message = bus.nextEvent(timeout: .zero) {
                if let ending = try handler.handle(message) { return ending }
            }
            if let ending = try handler.finishTurn() { return ending }
            MainLoop.wait(for: [bus.eventDescriptor], until: handler.nextDue())
        }
    }
}
