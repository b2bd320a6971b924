// yt-gst — one command-line option, specified once for parsing, help and completions.

/// One option of a command.
struct OptionSpec: Sendable {
    /// Long name without dashes ("sink").
    var name: String
    /// Single-letter alias ("q"), if any.
    var short: Character? = nil
    /// Placeholder for its value ("FRAGMENT"); nil for a flag.
    var valueName: String? = nil
    /// A flag that may be followed by a number (`--loop`, `--loop 3`, `--loop=3`).
    var optionalNumber = false
    var help: String
}
