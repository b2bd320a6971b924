// yt-gst — what a session's loop reads: a player's events or a pipeline's messages, or a test's bus in memory.

/// Where a session's loop takes what happened, and the descriptor it sleeps on until something did.
///
/// `Player` (the `Message`s that matter to a session) and `Pipeline` (all its bus's `Message`s) are the real ones; GstPlayerTesting's
/// `EmbeddedBus` is one a test posts into, so that session logic written against this protocol runs without a
/// pipeline (as swift-nio's `EmbeddedChannel` stands in for a socket).
public protocol EventBus<Event>: AnyObject {
    /// What the bus carries: `Message` for a player and a pipeline; a test may post any event type.
    associatedtype Event: Sendable

    /// A descriptor that is readable while events wait, for `MainLoop.wait(for:until:)`; nil when there is nothing
    /// to wait on (a player with nothing playing). Never read from or write to it.
    var eventDescriptor: Int32? { get }

    /// Waits up to `timeout` for the next event; nil when none came.
    func nextEvent(timeout: Duration) -> Event?
}

extension Player: EventBus {}

extension Pipeline: EventBus {
    /// The bus's descriptor (see `busDescriptor`).
    public var eventDescriptor: Int32? { busDescriptor }

    /// The next message on the bus (see `nextMessage(timeout:)`).
    public func nextEvent(timeout: Duration) -> Message? { nextMessage(timeout: timeout) }
}
