// yt-gst — the error of a mistyped command line.

/// A usage mistake: printed with the command's help, exit code 64.
struct UsageError: Error {
    var message: String
    /// Whether the command's help follows the message (not for one-line problems such as a template value).
    var showsHelp: Bool
    init(_ message: String, showsHelp: Bool = true) {
        self.message = message
        self.showsHelp = showsHelp
    }
}
