// yt-gst — SRT settings and messages shared by `stream` and `receive`.
import Glibc
import GstPlayer

enum NetworkSRT {
    /// The custom event `stream` sends through GDP just before its end of stream.
    static let endMarker = "yt-gst/end-of-stream"
    /// Sets an srtsrc's or srtsink's address, mode and encryption; auto-reconnect is off so failures are errors.
    static func configure(_ element: Element, endpoint: SRTEndpoint, latency: Int?) throws(GstError) {
        try element.set("uri", fromString: endpoint.elementURI)
        try element.set("auto-reconnect", fromString: "false")
        if let passphrase = endpoint.passphrase {
            try element.set("passphrase", fromString: passphrase)
            try element.set("pbkeylen", fromString: String(endpoint.keyLength ?? 16))
        }
        if let latency = endpoint.latency ?? latency { try element.set("latency", fromString: String(latency)) }
        // Wake up every 100 ms instead of blocking until the peer is declared dead (~5 s), so stopping is prompt.
        try element.set("poll-timeout", fromString: "100")
    }

    /// After the last buffer: waits (up to a few seconds) until the peer has acknowledged everything sent, so
    /// the tail inside SRT's latency window is not lost when the socket closes.
    static func waitUntilDelivered(_ sink: Element) {
        let deadline = ContinuousClock.now + .seconds(3)
        var quietSince: ContinuousClock.Instant? = nil
        var lastSent: String? = nil
        while ContinuousClock.now < deadline {
            let stats = sink.structureFields(of: "stats") ?? [:]
            if getenv("YT_GST_DEBUG_SRT_STATS") != nil { Terminal.error("srt stats: \(stats)") }
            let unacknowledged = ["snd-buf-pkts", "pkt-snd-buf", "snd-buffer"].compactMap {
                stats[$0].flatMap { Int($0) }
            }.first
            if let unacknowledged {
                if unacknowledged == 0 { return }
            } else {
                // No usable counter: wait until the sent-bytes count has been still for 300 ms.
                let sent = stats["bytes-sent-total"] ?? stats["bytes-sent"]
                if sent != lastSent {
                    lastSent = sent
                    quietSince = .now
                } else if let since = quietSince, ContinuousClock.now - since > .milliseconds(300) {
                    return
                }
            }
            var pause = timespec(tv_sec: 0, tv_nsec: 50_000_000)
            nanosleep(&pause, nil)
        }
    }

    /// One line for an SRT element's error, saying what it most likely means.
    static func explain(_ error: GstError, endpoint: SRTEndpoint, verbose: Bool) -> String {
        let text = error.message + " " + (error.debug ?? "")
        if text.contains("Incorrect passphrase") || text.contains("BADSECRET") {
            return "\(endpoint): wrong passphrase (the other side rejected the connection: Incorrect passphrase)"
        }
        if text.contains("Password required or unexpected") || text.contains("NOSECRET") {
            return "\(endpoint): passphrase mismatch (one side has a passphrase, the other has none)"
        }
        if text.contains("Connection setup failure") || text.contains("Connection timeout")
            || text.contains("Connection does not exist") || text.contains("connection timed out")
        {
            let what = endpoint.mode == .caller ? "could not connect" : "the connection failed"
            let detail = lastLine(of: error.debug) ?? error.message
            return "\(endpoint): \(what) (\(detail)); is the other side running, with the same passphrase?"
        }
        if text.contains("Error on SRT socket") || text.contains("Connection was broken") {
            return "\(endpoint): the connection broke (\(lastLine(of: error.debug) ?? error.message))"
        }
        if verbose { return "\(endpoint): \(error.verboseDescription)" }
        let detail = lastLine(of: error.debug).map { ": \($0)" } ?? ""
        return "\(endpoint): \(error.message)\(detail)"
    }

    /// The last line of GStreamer's debug text (where srt puts the reason).
    private static func lastLine(of debug: String?) -> String? {
        guard let line = debug?.split(separator: "\n").last.map(String.init), !line.isEmpty, !line.hasPrefix("../")
        else { return nil }
        return line
    }
}

enum NetworkFile {
    /// Writes `text` to `path` (replacing it). Returns the problem, or nil when written.
    static func write(_ text: String, to path: String) -> String? {
        guard let file = fopen(path, "w") else { return String(cString: strerror(errno)) }
        var text = text
        let written = text.withUTF8 { fwrite($0.baseAddress, 1, $0.count, file) }
        let closed = fclose(file)
        guard written == text.utf8.count, closed == 0 else { return String(cString: strerror(errno)) }
        return nil
    }

    /// Reads a small text file (an SDP). Returns the text, or the problem.
    static func read(_ path: String) -> Result<String, SDPError> {
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
