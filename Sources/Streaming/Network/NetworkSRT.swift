// yt-gst — SRT settings and messages shared by `stream` and `receive`.
import GstPlayer

/// What `stream` and `receive` do alike over SRT.
public enum NetworkSRT {
    /// The custom event `stream` sends through GDP just before its end of stream.
    public static let endMarker = "yt-gst/end-of-stream"
    /// Sets an srtsrc's or srtsink's address, mode and encryption; auto-reconnect is off so failures are errors.
    public static func configure(_ element: Element, endpoint: SRTEndpoint, latency: Int?) throws(GstError) {
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
    public static func waitUntilDelivered(_ sink: Element) {
        let deadline = ContinuousClock.now + .seconds(3)
        var quietSince: ContinuousClock.Instant? = nil
        var lastSent: UInt64? = nil
        while ContinuousClock.now < deadline {
            let stats = sink.structure(of: "stats") ?? Structure(name: "")
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
            // libsrt tells no one when the peer acknowledged: look again in 50 ms.
            MainLoop.wait(for: [], until: .now + .milliseconds(50))
        }
    }
}
