// yt-gst — a bus in memory: a test posts the events a pipeline would, and session logic reads them as from a bus.
import Glibc
import GstPlayer
import Synchronization

/// A stand-in for a player's or a pipeline's bus that a test (or an `EmbeddedAppSource`) posts into.
///
/// Session logic written against `EventBus` reads it unchanged: `nextEvent(timeout:)` takes the events in the order
/// they were posted, and `eventDescriptor` is readable exactly while some wait, so a loop that sleeps in
/// `MainLoop.wait(for:until:)` wakes for a post as it does for a message on a real bus. Use `EmbeddedBus<Message>`
/// where the code reads a pipeline or a player.
///
/// - Note: Thread-safe: post from any thread, as elements do from their streaming threads.
public final class EmbeddedBus<Event: Sendable>: EventBus, Sendable {
    private let pending = Mutex<[Event]>([])
    /// A pipe that holds one byte while events wait and none when none do (changed under the lock, so a read or
    /// write never blocks); its read end is the descriptor loops poll.
    private let pipe: (read: Int32, write: Int32)

    /// An empty bus.
    public init() {
        var ends: [Int32] = [-1, -1]
        precondition(Glibc.pipe(&ends) == 0, "pipe failed: errno \(errno)")
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        pipe = (ends[0], ends[1])
    }

    deinit {
        close(pipe.read)
        close(pipe.write)
    }

    /// Appends `event`, as an element posting a message; wakes a loop waiting on `eventDescriptor`.
    public func post(_ event: Event) {
        pending.withLock { events in
            if events.isEmpty { signal(true) }
            events.append(event)
        }
    }

    /// The events posted and not yet taken, oldest first.
    public var events: [Event] { pending.withLock { $0 } }

    // MARK: EventBus

    /// Readable while events wait.
    public var eventDescriptor: Int32? { pipe.read }

    /// The oldest event waiting; when none does, waits up to `timeout` (in real time: bounded, for a post from
    /// another thread) for one.
    public func nextEvent(timeout: Duration) -> Event? {
        if let event = take() { return event }
        guard timeout > .zero else { return nil }
        var watched = pollfd(fd: pipe.read, events: Int16(POLLIN), revents: 0)
        _ = poll(&watched, 1, Int32(clamping: Int64((timeout / .milliseconds(1)).rounded(.up))))
        return take()
    }

    private func take() -> Event? {
        pending.withLock { events in
            guard !events.isEmpty else { return nil }
            if events.count == 1 { signal(false) }
            return events.removeFirst()
        }
    }

    /// Makes the descriptor readable (puts the byte in) or not (takes it out).
    private func signal(_ readable: Bool) {
        var byte: UInt8 = 0
        _ = readable ? write(pipe.write, &byte, 1) : read(pipe.read, &byte, 1)
    }
}
