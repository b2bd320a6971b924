// yt-gst — `--input-ipc-server`, mpv's option for its JSON IPC socket, the same on every session command.
import Control

extension OptionSpec {
    /// `--input-ipc-server PATH`: a socket other programs steer the session through (mpv's name and protocol).
    static let inputIPCServer = OptionSpec(
        name: "input-ipc-server", valueName: "PATH",
        help: "Take mpv JSON IPC commands on this Unix socket (a bare name: in $XDG_RUNTIME_DIR); see `yt-gst ctl`.")
}

enum IPCOption {
    /// The session's IPC surface at `path`, listening before the session starts: `.some(nil)` without the option,
    /// nil when the socket cannot be made (once it has said why; the command then fails).
    static func open<Surface>(_ path: String?, _ make: (String) throws -> Surface) -> Surface?? {
        guard let path else { return .some(nil) }
        do { return try make(path) } catch {
            Terminal.error("yt-gst: --input-ipc-server \(error)")
            return nil
        }
    }

    /// A status interval that also serves the socket's observers (time-pos at most 4 times a second).
    static func statusInterval(_ interval: Duration?, serving ipc: AnyObject?) -> Duration? {
        ipc == nil ? interval : interval ?? IPCDispatcher.rateLimit
    }
}
