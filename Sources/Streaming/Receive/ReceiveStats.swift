// yt-gst — the receiver's counts: packets received, lost and late, and the audio decoded.
import GstPlayer

/// A receiver's counts, for its status and summary.
public struct ReceiveStats: Sendable {
    /// RTP packets the jitter buffer passed on, lost (never came) and late (came after their time).
    public var received = 0
    public var lost = 0
    public var late = 0
    /// The decoded audio.
    public var audio = FlowCounter.Snapshot()
    /// Whether the counts are RTP's (a jitter buffer's); over SRT only the audio counts.
    public var isRTP = false
    /// Datagrams that reached the RTP port but were not the stream's, by reason (`RTPPacketGuard`).
    public var dropped: [(reason: RTPDropReason, count: Int)] = []

    public init(
        jitterBuffer: Structure?, audio: FlowCounter.Snapshot?, dropped: [(reason: RTPDropReason, count: Int)] = []
    ) {
        if let jitterBuffer {
            isRTP = true
            received = Int(jitterBuffer.count("num-pushed") ?? 0)
            lost = Int(jitterBuffer.count("num-lost") ?? 0)
            late = Int(jitterBuffer.count("num-late") ?? 0)
        }
        self.audio = audio ?? FlowCounter.Snapshot()
        self.dropped = dropped
    }
}
