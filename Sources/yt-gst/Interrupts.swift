// yt-gst — SIGINT and SIGTERM, caught and turned into a flag and a wake-up.
import Glibc
import GstPlayer
import Synchronization

/// SIGINT and SIGTERM, turned into a flag the command loops check, and a pipe watched on the main loop so a loop
/// asleep in `MainLoop.wait` wakes.
enum Interrupts {
    /// The signal that asked us to stop, or 0.
    private static let received = Atomic<Int32>(0)
    /// A pipe the handler writes a byte into, so a loop asleep in poll(2) wakes (a signal between checking `pending`
    /// and entering poll would otherwise wait for the timeout).
    private static let wakePipe: (read: Int32, write: Int32) = {
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else { return (-1, -1) }
        for end in ends {
            _ = fcntl(end, F_SETFL, O_NONBLOCK)
            _ = fcntl(end, F_SETFD, FD_CLOEXEC)
        }
        return (ends[0], ends[1])
    }()

    /// Empties the pipe whenever a signal wrote into it (the flag is what loops read, the pipe only wakes them),
    /// and tells the session's control (`onSignal`).
    private static let wakeWatch = MainLoop.watch(wakePipe.read) {
        var bytes = [UInt8](repeating: 0, count: 16)
        while read(Interrupts.wakePipe.read, &bytes, bytes.count) > 0 {}
        if let signal = pending { handler.withLock { $0 }?(signal) }
    }

    /// What a session's command wants done with a signal (e.g. `control.stop(.interrupted(SIGINT))`).
    private static let handler = Mutex<(@Sendable (Int32) -> Void)?>(nil)

    /// Calls `handle` on the loop's thread (from `MainLoop.wait`) when SIGINT or SIGTERM arrives (at once if one
    /// came already): a library session hears of signals only as commands.
    static func onSignal(_ handle: @escaping @Sendable (Int32) -> Void) {
        install()
        handler.withLock { $0 = handle }
        if let signal = pending { handle(signal) }
    }

    static func install() {
        _ = wakeWatch
        let handler: @convention(c) (Int32) -> Void = { signal in
            if Interrupts.received.exchange(signal, ordering: .relaxed) != 0 { Interrupts.exitAtOnce(signal) }
            var byte: UInt8 = 1
            _ = write(Interrupts.wakePipe.write, &byte, 1)  // async-signal-safe
        }
        Glibc.signal(SIGINT, handler)
        Glibc.signal(SIGTERM, handler)
        // A parent may have started us with these blocked (they are inherited); we want them.
        var set = sigset_t()
        sigemptyset(&set)
        sigaddset(&set, SIGINT)
        sigaddset(&set, SIGTERM)
        pthread_sigmask(SIG_UNBLOCK, &set, nil)
    }

    /// A second signal: the user wants out now, though stopping is held up (a state change that waits for
    /// something that does not come: a FIFO no one reads, a PipeWire server that does not answer, which holds
    /// pipewiresink up to 30 s). Only async-signal-safe calls; what is written stays valid (the WAV writer's files
    /// are valid at every moment).
    private static func exitAtOnce(_ signal: Int32) -> Never {
        let line: StaticString = "yt-gst: a second signal: exiting without waiting for the pipeline to stop\n"
        _ = write(STDERR_FILENO, line.utf8Start, line.utf8CodeUnitCount)
        _exit(exitCode(for: signal).rawValue)
    }

    /// The pending signal (SIGINT or SIGTERM), if one came.
    static var pending: Int32? {
        let value = received.load(ordering: .relaxed)
        return value == 0 ? nil : value
    }

    /// How a command that stopped for `signal` exits: 143 for SIGTERM, 130 for SIGINT.
    static func exitCode(for signal: Int32) -> ExitCode { signal == SIGTERM ? .terminated : .interrupted }
}
