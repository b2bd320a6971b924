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

/// The terminal in cbreak mode (keys arrive one by one, unechoed; Ctrl-C still signals), put back exactly as it
/// was by `restore()`, which every way out of playback calls.
final class KeyboardInput {
    private var saved = termios()
    private var decoder = KeyDecoder()
    private var active = false

    /// Takes over stdin when it is a terminal; nil otherwise.
    init?() {
        guard isatty(STDIN_FILENO) == 1, tcgetattr(STDIN_FILENO, &saved) == 0 else { return nil }
        var raw = saved
        raw.c_lflag &= ~tcflag_t(ICANON | ECHO)
        withUnsafeMutableBytes(of: &raw.c_cc) { cc in
            cc[Int(VMIN)] = 0
            cc[Int(VTIME)] = 0
        }
        guard tcsetattr(STDIN_FILENO, TCSANOW, &raw) == 0 else { return nil }
        active = true
    }

    deinit { restore() }

    /// Puts the terminal back as it was. Safe to call more than once.
    func restore() {
        guard active else { return }
        tcsetattr(STDIN_FILENO, TCSANOW, &saved)
        active = false
    }

    /// The keys typed since the last call (possibly none); never waits for the first one.
    func keys() -> [Key] {
        var bytes = [UInt8](repeating: 0, count: 64)
        let n = read(STDIN_FILENO, &bytes, bytes.count)
        guard n > 0 else { return [] }
        // An escape sequence may arrive split: give the rest a moment before calling a lone ESC the Esc key.
        var more = pollfd(fd: STDIN_FILENO, events: Int16(POLLIN), revents: 0)
        let complete = !(bytes[n - 1] == 0x1B || (n >= 2 && bytes[n - 2] == 0x1B)) || poll(&more, 1, 30) == 0
        return decoder.feed(Array(bytes[0..<n]), complete: complete)
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
        Terminal.write("\r\(fitted)\u{1B}[K")  // carriage return, text, clear to the end of the line
        drawn = true
    }

    /// Removes the line so the next output starts on a clean line.
    mutating func clear() {
        guard enabled, drawn else { return }
        Terminal.write("\r\u{1B}[K")
        drawn = false
    }
}

/// SIGINT and SIGTERM, turned into a flag the command loops check, and a descriptor that wakes them (see `EventLoop`).
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

    /// Readable once a signal came; poll it beside the other descriptors.
    static var wakeDescriptor: Int32 { wakePipe.read }

    static func install() {
        _ = wakePipe
        let handler: @convention(c) (Int32) -> Void = { signal in
            Interrupts.received.store(signal, ordering: .relaxed)
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

    /// How a command that stopped for `signal` exits: 143 for SIGTERM, 130 for SIGINT.
    static func exitCode(for signal: Int32) -> ExitCode { signal == SIGTERM ? .terminated : .interrupted }

    /// The pending signal (SIGINT or SIGTERM), if one came.
    static var pending: Int32? {
        let value = received.load(ordering: .relaxed)
        return value == 0 ? nil : value
    }
}
