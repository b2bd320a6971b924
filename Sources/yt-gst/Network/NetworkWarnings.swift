// yt-gst — the warnings of a `stream` or `receive` pipeline, each kind said once.
import GstPlayer
import Streaming

/// Says each kind of warning once (`WarningFilter`), above the status line.
struct NetworkWarnings {
    let quiet: Bool
    let verbose: Bool
    private var filter = WarningFilter()

    init(quiet: Bool, verbose: Bool) {
        self.quiet = quiet
        self.verbose = verbose
    }

    /// Prints `warning` about `url` above the status line, unless it was said already or --quiet.
    mutating func report(_ warning: GstError, about url: StreamURL, status: inout StatusLine) {
        guard !quiet && filter.isNew(warning) else { return }
        status.say("yt-gst: \(url): warning: \(verbose ? warning.verboseDescription : warning.description)")
    }
}
