// yt-gst — the files that `play` and a broadcast are given, as operands.
import AppSrcFeeder

extension Playlist {
    /// The files of the operands (files, directories, m3u, pls), the playlist's warnings said unless `quiet`; nil
    /// when there are none, after saying there is nothing to `verb`.
    static func files(of operands: [String], nothingTo verb: String, quiet: Bool) -> [String]? {
        let (files, warnings) = expand(operands)
        if !quiet { for warning in warnings { Terminal.error("yt-gst: warning: \(warning)") } }
        guard files.isEmpty else { return files }
        Terminal.error("yt-gst: \(operands.joined(separator: " ")): nothing to \(verb) (no WAV files found)")
        return nil
    }
}
