// yt-gst — the small text files of the network half: SDP files written and read.
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
