// yt-gst — the receiver's counts: packets received, lost and late, and the audio decoded.
import GstPlayer

/// Counts for the status line and the summary.
struct ReceiveStats {
    var received = 0
    var lost = 0
    var late = 0
    var audio = FlowCounter.Snapshot()
    var isRTP = false

    init(jitterBuffer: Structure?, audio: FlowCounter.Snapshot?) {
        if let jitterBuffer {
            isRTP = true
            received = Int(jitterBuffer.count("num-pushed") ?? 0)
            lost = Int(jitterBuffer.count("num-lost") ?? 0)
            late = Int(jitterBuffer.count("num-late") ?? 0)
        }
        self.audio = audio ?? FlowCounter.Snapshot()
    }

    /// "1234 packets received, 2 lost, 0 late; 0:09.8 of audio".
    var summary: String {
        (isRTP ? packets + "; " : "") + "\(audio.duration) of audio"
    }

    /// "1234 packets received, 2 lost, 0 late" (RTP), or the bytes that arrived (SRT).
    var packets: String {
        isRTP ? "\(received) packets received, \(lost) lost, \(late) late" : "\(audio.bytes / 1024) KiB received"
    }
}
