// yt-gst — the receiver's counts: packets received, lost and late, and the audio decoded.
import GstPlayer

/// Counts for the status line and the summary.
struct ReceiveStats {
    var received = 0
    var lost = 0
    var late = 0
    var audio = FlowCounter.Snapshot()
    var isRTP = false
    /// Datagrams that reached the RTP port but were not the stream's, by reason (`RTPPacketGuard`).
    var dropped: [(reason: RTPDropReason, count: Int)] = []

    init(jitterBuffer: Structure?, audio: FlowCounter.Snapshot?, dropped: [(reason: RTPDropReason, count: Int)] = []) {
        if let jitterBuffer {
            isRTP = true
            received = Int(jitterBuffer.count("num-pushed") ?? 0)
            lost = Int(jitterBuffer.count("num-lost") ?? 0)
            late = Int(jitterBuffer.count("num-late") ?? 0)
        }
        self.audio = audio ?? FlowCounter.Snapshot()
        self.dropped = dropped
    }

    /// "1234 packets received, 2 lost, 0 late; 0:09.8 of audio", with "; 7 packets dropped (5 not RTP, 2 from
    /// another source)" before the audio when some were.
    var summary: String {
        ((isRTP ? [packets] : []) + (droppedText.map { [$0] } ?? []) + ["\(audio.duration) of audio"])
            .joined(separator: "; ")
    }

    /// "7 packets dropped (5 not RTP, 2 from another source)"; nil when none were.
    var droppedText: String? {
        guard !dropped.isEmpty else { return nil }
        let total = dropped.map(\.count).reduce(0, +)
        let reasons = dropped.map { "\($0.count) \($0.reason.words)" }.joined(separator: ", ")
        return "\(total) packet\(total == 1 ? "" : "s") dropped (\(reasons))"
    }

    /// "1234 packets received, 2 lost, 0 late" (RTP), or the bytes that arrived (SRT).
    var packets: String {
        isRTP ? "\(received) packets received, \(lost) lost, \(late) late" : "\(audio.bytes / 1024) KiB received"
    }
}
