// yt-gst — the small text files of the network half: SDP files written and read, HLS playlists replaced.
import Glibc

public enum NetworkFile {
    /// Writes `text` to `path` (replacing it). Returns the problem, or nil when written.
    public static func write(_ text: String, to path: String) -> String? {
        guard let file = fopen(path, "w") else { return String(cString: strerror(errno)) }
        var text = text
        let written = text.withUTF8 { fwrite($0.baseAddress, 1, $0.count, file) }
        let closed = fclose(file)
        guard written == text.utf8.count, closed == 0 else { return String(cString: strerror(errno)) }
        return nil
    }

    /// Replaces `path` with `text` at once: written beside it (as `.NAME.tmp`), then renamed over it, so a reader
    /// (a web server serving a playlist) sees the old text or the new, never half of it. Returns the problem, or nil.
    public static func replace(_ path: String, with text: String) -> String? {
        let slash = path.lastIndex(of: "/").map { path.index(after: $0) } ?? path.startIndex
        let temporary = String(path[..<slash]) + "." + path[slash...] + ".tmp"
        let problem =
            write(text, to: temporary) ?? (rename(temporary, path) == 0 ? nil : String(cString: strerror(errno)))
        if problem != nil { unlink(temporary) }
        return problem
    }

    /// Reads a small text file (an SDP). Returns the text, or the problem.
    public static func read(_ path: String) -> Result<String, SDPError> {
        guard let file = fopen(path, "r") else { return .failure(SDPError(String(cString: strerror(errno)))) }
        defer { fclose(file) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = fread(&chunk, 1, chunk.count, file)
            if count > 0 { bytes += chunk[0..<count] }
            if count < chunk.count { break }
            if bytes.count > 1 << 20 { return .failure(SDPError("larger than 1 MB: not an SDP file")) }
        }
        if ferror(file) != 0 { return .failure(SDPError(String(cString: strerror(errno)))) }
        return .success(String(decoding: bytes, as: UTF8.self))
    }
}
