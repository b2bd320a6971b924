// yt-gst — output helpers: stderr lines, terminal detection, the in-place status line, signals.
import Glibc
import Synchronization

enum Terminal {
    /// Whether stdout is a terminal (the status line is drawn only then).
    static var stdoutIsTerminal: Bool { isatty(STDOUT_FILENO) == 1 }

    /// Prints one line on stderr.
    static func error(_ line: String) { write(line + "\n", to: STDERR_FILENO) }

    /// Prints on stdout, unbuffered, so lines interleave correctly with stderr.
    static func write(_ text: String) { write(text, to: STDOUT_FILENO) }

    private static func write(_ text: String, to descriptor: Int32) {
        var text = text
        text.withUTF8 { bytes in
            var done = 0
            while done < bytes.count {
                let n = Glibc.write(descriptor, bytes.baseAddress! + done, bytes.count - done)
                if n < 0 && errno == EINTR { continue }
                guard n > 0 else { return }
                done += n
            }
        }
    }

    /// Terminal width in columns (80 when unknown).
    static var columns: Int {
        var size = winsize()
        guard ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 else { return 80 }
        return Int(size.ws_col)
    }
}

/// One status line redrawn in place with a carriage return, cleared when playback ends.
struct StatusLine {
    let enabled: Bool
    private var drawn = false

    init(enabled: Bool) { self.enabled = enabled }

    mutating func draw(_ text: String) {
        guard enabled else { return }
        let width = max(Terminal.columns - 1, 10)
        let fitted = text.count > width ? String(text.prefix(width)) : text
        Terminal.write("\r\(fitted)\u{1B}[K")
        drawn = true
    }

    /// Removes the line so the next output starts on a clean line.
    mutating func clear() {
        guard enabled, drawn else { return }
        Terminal.write("\r\u{1B}[K")
        drawn = false
    }
}

/// SIGINT and SIGTERM, turned into a flag the play loop checks between bus reads.
enum Interrupts {
    /// The signal that asked us to stop, or 0.
    private static let received = Atomic<Int32>(0)

    static func install() {
        let handler: @convention(c) (Int32) -> Void = { signal in
            Interrupts.received.store(signal, ordering: .relaxed)
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

    /// The pending signal (SIGINT or SIGTERM), if one came.
    static var pending: Int32? {
        let value = received.load(ordering: .relaxed)
        return value == 0 ? nil : value
    }
}
