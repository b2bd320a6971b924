// yt-gst — the process's one loop: GLib's default main context, driven from poll(2) with the loop's own descriptors.
internal import CGStreamer
import Glibc

/// Where every session's control loop sleeps between two turns, and the GLib main context they all dispatch.
///
/// A loop does what is ready (bus messages, keys, commands) and what is due, then calls `wait(for:until:)`, which
/// sleeps until one of its descriptors is readable, a GLib source on the default main context is ready (a GIO socket,
/// a D-Bus connection, a descriptor watched with `watch(_:handler:)`), `wake()` is called, or the deadline passes; the
/// GLib sources that are ready are dispatched before it returns, on the loop's thread. A loop with nothing due passes
/// no deadline and does not wake at all until something happens (zero wake-ups while idle).
///
/// The corresponding C functions are `g_main_context_prepare`, `_query`, `_check` and `_dispatch`.
public enum MainLoop {
    /// Sleeps until one of `descriptors` is readable, a GLib source is ready, `wake()` is called, or `deadline`
    /// passes (never, when nil); then dispatches the GLib sources that are ready.
    ///
    /// - Parameter descriptors: the bus's, the terminal's...; nil and negative entries are left out.
    /// - Note: Call it from the thread that runs the session. When another thread owns the default main context,
    ///   only `descriptors` and the deadline are waited for.
    public static func wait(for descriptors: [Int32?], until deadline: ContinuousClock.Instant?) {
        let context = g_main_context_default()
        let owned = g_main_context_acquire(context) != 0
        defer { if owned { g_main_context_release(context) } }
        var priority: gint = 0
        var sources: [GPollFD] = []
        var sourceTimeout: gint = -1
        if owned {
            _ = g_main_context_prepare(context, &priority)
            sources = query(context, priority: priority, timeout: &sourceTimeout)
        }
        var polled = descriptors.compactMap { $0 }.filter { $0 >= 0 }
            .map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
        let ownCount = polled.count
        polled += sources.map { pollfd(fd: $0.fd, events: Int16(bitPattern: $0.events), revents: 0) }
        _ = poll(&polled, nfds_t(polled.count), earliestTimeout(milliseconds(until: deadline), sourceTimeout))
        guard owned else { return }
        for index in sources.indices {
            sources[index].revents = UInt16(bitPattern: polled[ownCount + index].revents)
        }
        if g_main_context_check(context, priority, &sources, gint(sources.count)) != 0 {
            g_main_context_dispatch(context)
        }
    }

    /// Wakes the thread asleep in `wait(for:until:)` (so it drains a command queue); callable from any thread.
    ///
    /// The corresponding C function is `g_main_context_wakeup`.
    public static func wake() { g_main_context_wakeup(g_main_context_default()) }

    /// The earliest of the deadlines that are set (nil: none is).
    public static func earliest(_ deadlines: ContinuousClock.Instant?...) -> ContinuousClock.Instant? {
        deadlines.compactMap { $0 }.min()
    }

    /// The descriptors and timeout GLib's sources want polled (growing the array when it was too small).
    private static func query(
        _ context: OpaquePointer?, priority: gint, timeout: inout gint
    ) -> [GPollFD] {
        var sources = [GPollFD](repeating: GPollFD(), count: 8)
        while true {
            let needed = Int(g_main_context_query(context, priority, &timeout, &sources, gint(sources.count)))
            if needed <= sources.count { return Array(sources.prefix(needed)) }
            sources = [GPollFD](repeating: GPollFD(), count: needed)
        }
    }

    /// poll(2)'s timeout for `deadline`: whole milliseconds rounded up, so a loop never wakes just before it is
    /// due; -1 (wait for ever) without one.
    private static func milliseconds(until deadline: ContinuousClock.Instant?) -> Int32 {
        guard let deadline else { return -1 }
        let left = ContinuousClock.now.duration(to: deadline) / .microseconds(1000)
        return Int32(min(max(0, left.rounded(.up)), Double(Int32.max)))
    }

    /// The shorter of two poll(2) timeouts, where -1 is for ever.
    private static func earliestTimeout(_ a: Int32, _ b: Int32) -> Int32 {
        if a < 0 { return b }
        if b < 0 { return a }
        return min(a, b)
    }
}
