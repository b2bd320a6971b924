// yt-gst — the broadcast destinations of `stream --to` as users type them.
import Streaming

extension BroadcastTarget {
    /// Parses `icecast://[USER:]PASSWORD@HOST[:PORT]/MOUNT`, `hls:DIR` or `file:///DIR/NAME.m3u8`.
    ///
    /// - Throws: a `UsageError` that names the problem.
    init(parsing text: String) throws(UsageError) {
        let lower = text.lowercased()
        if lower.hasPrefix("icecast://") {
            self = .icecast(try IcecastEndpoint(parsing: text.dropFirst("icecast://".count), in: text))
        } else if lower.hasPrefix("hls:") {
            var directory = String(text.dropFirst(4))
            if directory.hasPrefix("//") { directory = String(directory.dropFirst(2)) }
            guard !directory.isEmpty else {
                throw UsageError("\(text): hls: needs a directory, e.g. hls:/var/www/radio")
            }
            if directory.count > 1 && directory.hasSuffix("/") { directory.removeLast() }
            self = .hls(directory: directory, playlist: BroadcastTarget.defaultPlaylist)
        } else if lower.hasPrefix("file://") && lower.hasSuffix(".m3u8") {
            let path = try StreamURL.percentDecoded(text.dropFirst("file://".count), in: text)
            guard path.hasPrefix("/"), let slash = path.lastIndex(of: "/") else {
                throw UsageError("\(text): expected file:///DIRECTORY/NAME.m3u8 (an absolute path)")
            }
            let name = String(path[path.index(after: slash)...])
            guard name.count > ".m3u8".count else { throw UsageError("\(text): no playlist name") }
            self = .hls(directory: slash == path.startIndex ? "/" : String(path[..<slash]), playlist: name)
        } else {
            throw UsageError("\(text): not a broadcast destination (icecast://..., hls:DIR or file:///.../NAME.m3u8)")
        }
    }
}
