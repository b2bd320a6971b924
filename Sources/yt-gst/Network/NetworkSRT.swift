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
        var lastSent: UInt64? = nil
        while ContinuousClock.now < deadline {
            let stats = sink.structure(of: "stats") ?? Structure(name: "")
            if getenv("YT_GST_DEBUG_SRT_STATS") != nil { Terminal.error("srt stats: \(stats)") }
            let unacknowledged = ["snd-buf-pkts", "pkt-snd-buf", "snd-buffer"].compactMap { stats.count($0) }.first
            if let unacknowledged {
                if unacknowledged == 0 { return }
            } else {
                // No usable counter: wait until the sent-bytes count has been still for 300 ms.
                let sent = stats.count("bytes-sent-total") ?? stats.count("bytes-sent")
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
    ///
    /// - Parameter connected: whether audio already went through this connection (then it broke, rather than
    ///   never came up).
    static func explain(_ error: GstError, endpoint: SRTEndpoint, connected: Bool, verbose: Bool) -> String {
        let detail = lastLine(of: error.debug) ?? error.message
        // Opening (binding, resolving) fails as OPEN_*; a connection that is refused, times out or breaks as
        // READ or WRITE, with libsrt's reject reason (if any) in the text.
        guard error.resourceError == .read || error.resourceError == .write else {
            if verbose { return "\(endpoint): \(error.verboseDescription)" }
            return "\(endpoint): \(error.message)\(detail == error.message ? "" : ": " + detail)"
        }
        switch SRTRejectReason(reportedIn: detail) {
        case .badSecret?:
            return "\(endpoint): wrong passphrase (the other side rejected the connection: Incorrect passphrase)"
        case .unsecure?:
            return "\(endpoint): \(SRTRejectReason.unsecure.explanation)"
        default:
            break
        }
        if !connected {
            let what = endpoint.mode == .caller ? "could not connect" : "the connection failed"
            return "\(endpoint): \(what) (\(detail)); is the other side running, with the same passphrase?"
        }
        if verbose { return "\(endpoint): the connection broke: \(error.verboseDescription)" }
        return "\(endpoint): the connection broke (\(detail))"
    }

    /// The last line of GStreamer's debug text (where srt puts the reason).
    private static func lastLine(of debug: String?) -> String? {
        guard let line = debug?.split(separator: "\n").last.map(String.init), !line.isEmpty, !line.hasPrefix("../")
        else { return nil }
        return line
    }
}

/// Why libsrt refused a connection: its reject reason, `SRT_REJ_*` in srt.h (numbered as there).
enum SRTRejectReason: Int32, Equatable {
    case unknown = 0, system, peer, resource, rogue, backlog, internalProgramError, close, version, rendezvousCookie
    /// SRT_REJ_BADSECRET: both sides have a passphrase, and they differ.
    case badSecret = 10
    /// SRT_REJ_UNSECURE: one side has a passphrase, the other has none.
    case unsecure = 11
    case messageAPI, congestion, filter, group
    /// SRT_REJ_TIMEOUT: the handshake got no answer in time.
    case timeout = 16
    case crypto = 17

    /// What it means for the user, for the reasons users cause.
    var explanation: String {
        switch self {
        case .badSecret: "wrong passphrase (a caller was rejected: Incorrect passphrase)"
        case .unsecure: "passphrase mismatch (one side has a passphrase, the other has none)"
        default: "a caller was rejected (libsrt reject reason \(rawValue))"
        }
    }

    /// What precedes the number in libsrt's log line for a rejected caller (category "srtlib", level INFO).
    static let handshakeLogMarker = "rsp(REJECT): "

    /// The reason in a listener's handshake log line, `processConnectRequest: rsp(REJECT): 1010 - ...`: the number
    /// after the marker is the handshake's request type, 1000 (URQ_FAILURE_TYPE in libsrt) + the reason. The line
    /// may come in GStreamer's structure text form (a message field), with its backslash escapes.
    init?(handshakeLogLine text: String) {
        let line = String(text.filter { $0 != "\\" })
        guard let range = line.firstRange(of: SRTRejectReason.handshakeLogMarker),
            let type = Int32(line[range.upperBound...].prefix(while: \.isNumber)),
            type >= 1000
        else { return nil }
        self.init(rawValue: type - 1000)
    }

    /// The reason an srt element put in its error text.
    ///
    /// GStreamer 1.22's srtsrc and srtsink report every failure as a resource READ or WRITE error, so the GError
    /// code does not tell a rejection from a timeout. gstsrtobject.c ends the text with `srt_rejectreason_str(reason)`
    /// (GStreamer 1.24 and later add " (reason)"): the number is read when it is there, else the text is looked up
    /// in libsrt's own table of those strings. Nil when the text names no reject reason.
    init?(reportedIn text: String) {
        if text.hasSuffix(")"), let open = text.lastIndex(of: "("),
            let number = Int32(text[text.index(after: open)..<text.index(before: text.endIndex)])
        {
            self.init(rawValue: number)
            return
        }
        let tail = text.split(separator: ":").last.map { String($0.drop { $0 == " " }) } ?? ""
        guard let code = SRTRejectReason.libsrtCodes[tail] else { return nil }
        self.init(rawValue: code)
    }

    /// libsrt's `srt_rejectreason_str(n)` for every reason it knows, mapped back to n; read from the libsrt the
    /// srt plugin loaded (empty when none is loaded).
    private static let libsrtCodes: [String: Int32] = {
        typealias ReasonText = @convention(c) (Int32) -> UnsafePointer<CChar>?
        let names = ["libsrt-gnutls.so.1.5", "libsrt-openssl.so.1.5", "libsrt.so.1.5"]
        guard let library = names.lazy.compactMap({ dlopen($0, RTLD_LAZY | RTLD_NOLOAD) }).first else { return [:] }
        defer { dlclose(library) }
        guard let symbol = dlsym(library, "srt_rejectreason_str") else { return [:] }
        let text = unsafeBitCast(symbol, to: ReasonText.self)
        // Past its last reason, libsrt answers with the text of reason 0 (unknown).
        let unknown = text(0).map { String(cString: $0) }
        var codes: [String: Int32] = [:]
        for code in Int32(1)..<100 {
            guard let reason = text(code).map({ String(cString: $0) }), reason != unknown else { break }
            codes[reason] = code
        }
        return codes
    }()
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
