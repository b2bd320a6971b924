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
    /// A flag that may be followed by an address and port (`--control`, `--control 1705`, `--control=::1:1705`).
    var optionalEndpoint = false
    var help: String

    /// Whether the flag's value is optional.
    var valueIsOptional: Bool { optionalNumber || optionalEndpoint }

    /// Whether `next`, the argument after the flag, is its value: a number, or for an endpoint `[ADDR:]PORT`.
    func takesAsValue(_ next: String) -> Bool {
        if Int(next) != nil { return valueIsOptional }
        guard optionalEndpoint, let colon = next.lastIndex(of: ":") else { return false }
        return Int(next[next.index(after: colon)...]) != nil && !next.contains("/")
    }
}
