// yt-gst — "-" as an operand: a WAV read from standard input.
import Glibc

enum StandardInput {
    /// Checks the operands of `command` for "-": it can be given once (a pipe plays once), and not while standard
    /// input is a terminal (where nobody types a WAV).
    static func check(_ operands: [String], command: String) throws(UsageError) {
        let count = operands.filter { $0 == "-" }.count
        if count > 1 { throw UsageError("\"-\" (standard input) can be given once: a pipe plays once") }
        if count == 1 && isatty(STDIN_FILENO) == 1 {
            throw UsageError(
                "\"-\" reads a WAV from standard input, which is a terminal here; pipe one in"
                    + " (e.g. arecord -f cd | yt-gst \(command) -)", showsHelp: false)
        }
    }
}
