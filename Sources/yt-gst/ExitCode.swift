// yt-gst — the exit statuses of yt-gst.

/// Exit codes, as documented in `--help`.
enum ExitCode: Int32 {
    case success = 0
    case failure = 1
    case usage = 64
    case interrupted = 130
    case terminated = 143
}
