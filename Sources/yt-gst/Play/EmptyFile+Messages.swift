// yt-gst — what to say about a file with nothing to play: the same lines from `play` and from a broadcast.
import AppSrcFeeder

extension GaplessChain.EmptyFile {
    /// Why it has nothing to play, as in "PATH: nothing to play (WHY)".
    var reason: String { cutAway ? "--start/--end leave none of its audio" : "it holds no audio" }

    /// The warnings for a file passed over (played as nothing): the header's own, as when a file starts (one
    /// says why a file holds no audio), and "nothing to play" when the window left none of its audio.
    var warningLines: [String] {
        let why = cutAway || warnings.isEmpty ? ["nothing to play (\(reason))"] : []
        return (warnings + why).map { "yt-gst: \(path): warning: \($0)" }
    }
}
