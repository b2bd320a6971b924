// yt-gst — the receiver's counts in words: the status line's and the summary's.
import GstPlayer

extension ReceiveStats {
    /// "1234 packets received, 2 lost, 0 late; 0:09.8 of audio", with "; 7 packets dropped (5 not RTP, 2 from
    /// another source)" before the audio when some were.
    public var summary: String {
        ((isRTP ? [packets] : []) + (droppedText.map { [$0] } ?? []) + ["\(audio.duration) of audio"])
            .joined(separator: "; ")
    }

    /// "7 packets dropped (5 not RTP, 2 from another source)"; nil when none were.
    public var droppedText: String? {
        guard !dropped.isEmpty else { return nil }
        let total = dropped.map(\.count).reduce(0, +)
        let reasons = dropped.map { "\($0.count) \($0.reason.words)" }.joined(separator: ", ")
        return "\(total) packet\(total == 1 ? "" : "s") dropped (\(reasons))"
    }

    /// "1234 packets received, 2 lost, 0 late" (RTP), or the bytes that arrived (SRT).
    public var packets: String {
        isRTP ? "\(received) packets received, \(lost) lost, \(late) late" : "\(audio.bytes / 1024) KiB received"
    }
}

extension RTPDropReason {
    /// The summary's words: "3 not RTP".
    public var words: String {
        switch self {
        case .notRTP: "not RTP"
        case .payloadType: "of another payload type"
        case .size: "of a wrong size"
        case .source: "from another source"
        }
    }
}
