// yt-gst — the sender's end of an SRT stream: the tail delivered before the socket closes.
import GstPlayer
import WAV

extension NetworkSRT {
    /// After the last buffer: waits (up to a few seconds) until the peer has acknowledged everything sent, so
    /// the tail inside SRT's latency window is not lost when the socket closes.
    ///
    /// - Parameter stop: asked between looks (every 50 ms); true ends the wait at once.
    static func waitUntilDelivered(_ sink: Element, stop: () -> Bool) {
        let deadline = ContinuousClock.now + .seconds(3)
        var quietSince: ContinuousClock.Instant? = nil
        var lastSent: UInt64? = nil
        while ContinuousClock.now < deadline, !stop() {
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
