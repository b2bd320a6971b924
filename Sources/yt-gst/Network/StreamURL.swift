// yt-gst — the URLs of `stream` and `receive` as users type them: a mistyped one is a usage error.
import Streaming

extension StreamURL {
    /// Parses a URL from the command line.
    ///
    /// - Throws: a `UsageError` with the library's words for the problem.
    init(parsing text: String) throws(UsageError) {
        do { self = try StreamURL(text) } catch { throw UsageError(error.description) }
    }

    /// `resolved(sending:)` for a command's plan: a problem is said in one line, and the command exits with 1.
    func resolvedOrExit(sending: Bool) throws(ExitCode) -> StreamURL {
        do { return try resolved(sending: sending) } catch {
            Terminal.error("yt-gst: \(error)")
            throw .failure
        }
    }
}
