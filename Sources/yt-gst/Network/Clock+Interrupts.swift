// yt-gst — a wait for a network clock that a signal interrupts, for `stream`'s sender clock.
import Glibc
import GstPlayer
import Streaming
import WAV

extension Clock {
    /// Waits up to `limit` for a network clock's first answer, giving up at once for a signal.
    ///
    /// - Returns: whether the clock answered.
    /// - Throws: the exit code of the signal that interrupted the wait.
    func waitForSync(within limit: Duration) throws(ExitCode) -> Bool {
        switch waitForSync(within: limit, stoppingWhen: { Interrupts.pending != nil }) {
        case .answered: return true
        case .timedOut: return false
        case .stopped: throw Interrupts.exitCode(for: Interrupts.pending ?? SIGINT)
        }
    }
}
