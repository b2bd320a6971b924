// yt-gst — what `play` and `record` show and read: --status, --no-interactive, --quiet and --verbose.

/// The options of a command that draws a status line and reads keys, parsed once for both.
struct TerminalOptions {
    enum StatusMode: String { case auto, json, none }

    /// Their specs; `silenced` says what --quiet leaves out.
    static func specs(quietSilencing silenced: String) -> [OptionSpec] {
        [
            OptionSpec(
                name: "status", valueName: "MODE",
                help: "Status output: auto (a line on a terminal), json (a JSON object per line), none."),
            OptionSpec(name: "no-interactive", help: "Ignore the keyboard even on a terminal."),
            .quiet(silencing: silenced),
            .verbose,
        ]
    }

    var status: StatusMode
    var interactive: Bool
    var quiet: Bool
    var verbose: Bool

    init(_ parsed: ParsedArguments) throws(UsageError) {
        guard let mode = StatusMode(rawValue: parsed.value("status") ?? "auto") else {
            throw UsageError("--status must be auto, json or none")
        }
        status = mode
        interactive = !parsed.flags.contains("no-interactive")
        quiet = parsed.flags.contains("quiet")
        verbose = parsed.flags.contains("verbose")
    }

    /// Whether the status line is drawn: --status auto, not --quiet, on a terminal.
    func drawsStatusLine(onTerminal: Bool) -> Bool { status == .auto && onTerminal && !quiet }
}
