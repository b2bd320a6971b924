// yt-gst — the one wait of every command's control loop: poll(2) until something happens or a deadline is due.
import Glibc

/// Where `play`, `stream` and `receive` sleep between two turns of their control loop.
///
/// A loop does everything that is ready (bus messages, keys) and what is due, then waits here until a descriptor it
/// watches becomes readable, SIGINT/SIGTERM arrives, or its earliest deadline passes. A loop with nothing to do at a
/// given time passes no deadline and does not wake at all until something happens.
enum EventLoop {
    /// Sleeps until one of `descriptors` is readable, a signal arrives, or `deadline` passes (never, when nil).
    ///
    /// - Parameter descriptors: the bus's, the terminal's...; nil and negative entries are left out.
    static func wait(for descriptors: [Int32?], until deadline: ContinuousClock.Instant?) {
        // The signal pipe stays readable once written: after the first signal only the others (or the deadline)
        // wake us, so a loop that goes on to finish the stream does not spin.
        let signals = Interrupts.pending == nil ? Interrupts.wakeDescriptor : nil
        var polled = ([signals] + descriptors).compactMap { $0 }.filter { $0 >= 0 }
            .map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
        _ = poll(&polled, nfds_t(polled.count), milliseconds(until: deadline))
    }

    /// The earliest of the deadlines that are set (nil: none is).
    static func earliest(_ deadlines: ContinuousClock.Instant?...) -> ContinuousClock.Instant? {
        deadlines.compactMap { $0 }.min()
    }

    /// poll(2)'s timeout for `deadline`: whole milliseconds rounded up, so a loop never wakes just before it is
    /// due; -1 (wait for ever) without one.
    private static func milliseconds(until deadline: ContinuousClock.Instant?) -> Int32 {
        guard let deadline else { return -1 }
        let left = ContinuousClock.now.duration(to: deadline) / .microseconds(1000)
        return Int32(min(max(0, left.rounded(.up)), Double(Int32.max)))
    }
}
