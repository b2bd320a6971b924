// yt-gst — output helpers: stderr and stdout lines, terminal detection and width.
import Glibc

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
