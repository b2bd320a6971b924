// yt-gst — keys read from the terminal in cbreak mode.
import Glibc

/// The terminal in cbreak mode (keys arrive one by one, unechoed; Ctrl-C still signals), put back exactly as it
/// was by `restore()`, which every way out of playback calls.
final class KeyboardInput {
    /// The terminal read: stdin, or /dev/tty while stdin carries the audio (`play -`).
    let descriptor: Int32
    private var saved = termios()
    private var decoder = KeyDecoder()
    private var active = false

    /// Takes over stdin when it is a terminal; nil otherwise. When stdin is the audio (`stdinIsAudio`), the keys come
    /// from the controlling terminal (/dev/tty) instead, as `less` and mpv do, when there is one.
    init?(stdinIsAudio: Bool = false) {
        descriptor = stdinIsAudio ? open("/dev/tty", O_RDONLY | O_CLOEXEC | O_NOCTTY) : STDIN_FILENO
        guard descriptor >= 0 else { return nil }
        guard isatty(descriptor) == 1, tcgetattr(descriptor, &saved) == 0 else {
            if descriptor != STDIN_FILENO { close(descriptor) }
            return nil
        }
        var raw = saved
        raw.c_lflag &= ~tcflag_t(ICANON | ECHO)
        withUnsafeMutableBytes(of: &raw.c_cc) { cc in
            cc[Int(VMIN)] = 0
            cc[Int(VTIME)] = 0
        }
        guard tcsetattr(descriptor, TCSANOW, &raw) == 0 else {
            if descriptor != STDIN_FILENO { close(descriptor) }
            return nil
        }
        active = true
    }

    deinit {
        restore()
        if descriptor != STDIN_FILENO { close(descriptor) }
    }

    /// Puts the terminal back as it was. Safe to call more than once.
    func restore() {
        guard active else { return }
        tcsetattr(descriptor, TCSANOW, &saved)
        active = false
    }

    /// The keys typed since the last call (possibly none); never waits for the first one.
    func keys() -> [Key] {
        var bytes = [UInt8](repeating: 0, count: 64)
        let n = read(descriptor, &bytes, bytes.count)
        guard n > 0 else { return [] }
        // An escape sequence may arrive split: give the rest a moment before calling a lone ESC the Esc key.
        var more = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        let complete = !(bytes[n - 1] == 0x1B || (n >= 2 && bytes[n - 2] == 0x1B)) || poll(&more, 1, 30) == 0
        return decoder.feed(Array(bytes[0..<n]), complete: complete)
    }
}
