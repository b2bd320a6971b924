// yt-gst — the exit statuses of yt-gst.

/// Exit codes, as documented in `--help`. A command's step may throw one to stop, once it has said why.
enum ExitCode: Int32, Error {
    case success = 0
    case failure = 1
    case usage = 64
    case interrupted = 130
    case terminated = 143
}
