// yt-gst — one HLS destination's playlist on disk, kept by the broadcast as its segment sink finishes segments.
import Glibc
import GstPlayer
import WAV

/// The playlist of one HLS directory: `HLSPlaylist` fed by its `splitmuxsink`'s messages, written atomically after
/// each segment, and the segments that left it deleted.
///
/// It outlives the pipelines: the session builds each new one with the sink counting from `nextSegment`, and calls
/// `pipelineStarts()`, so numbering goes on and the break is marked.
final class HLSPlaylistFile {
    /// The segment sink's element name (`hls0`).
    let sink: String
    let directory: String
    /// The playlist's file name in `directory`.
    let name: String
    private var playlist: HLSPlaylist
    /// The running time at which the segment being written began.
    private var openedAt: UInt64 = 0

    init(sink: String, directory: String, name: String, targetSeconds: Int, length: Int) {
        self.sink = sink
        self.directory = directory
        self.name = name
        playlist = HLSPlaylist(targetSeconds: targetSeconds, length: length)
    }

    /// The number the next pipeline's sink starts its file names at (`start-index`).
    var nextSegment: Int { playlist.nextNumber }

    /// A new pipeline starts: its running time starts again, and its first segment follows a discontinuity.
    func pipelineStarts() {
        playlist.restart()
        openedAt = 0
    }

    /// Takes an element message: a segment the sink finished is listed (and the playlist written). Returns the
    /// problem when the playlist could not be written; nil for any other message.
    func handle(_ message: Structure) -> String? {
        guard message.elementName == sink, let time = message.count("running-time") else { return nil }
        switch message.name {
        case "splitmuxsink-fragment-opened":
            openedAt = time
        case "splitmuxsink-fragment-closed":
            guard let location = message.string("location") else { return nil }
            let seconds = Double(time > openedAt ? time - openedAt : 0) / 1e9
            let name = String(location.split(separator: "/").last ?? Substring(location))
            for stale in playlist.append(name: name, seconds: seconds) { unlink(directory + "/" + stale) }
            return save()
        default:
            break
        }
        return nil
    }

    /// The broadcast is over: the playlist says so (EXT-X-ENDLIST). Returns the problem if it could not be written.
    func finish() -> String? {
        playlist.end()
        return save()
    }

    private func save() -> String? {
        NetworkFile.replace(directory + "/" + name, with: playlist.text).map { "cannot write \(name) (\($0))" }
    }
}
