// yt-gst — how loud a 16-bit recording (parec's) is over a stretch of it, per channel: a room's level at a sink.
import Foundation

extension RecordedWAV {
    /// Seconds of sound in the data chunk.
    public var seconds: Double { Double(data.count / max(1, channels * bitsPerSample / 8)) / Double(sampleRate) }

    /// The RMS (in sample units, full scale 32767) of 16-bit PCM from `start` to `end` seconds, of one channel
    /// (0-based) or of all of them; 0 for an empty stretch.
    public func rms(channel: Int? = nil, from start: Double, to end: Double) -> Double {
        precondition(formatTag == 1 && bitsPerSample == 16, "not 16-bit PCM: tag \(formatTag), \(bitsPerSample) bits")
        let frameBytes = channels * 2
        let frames = data.count / frameBytes
        let (first, last) = (max(0, Int(start * Double(sampleRate))), min(frames, Int(end * Double(sampleRate))))
        let picked = channel.map { [$0] } ?? Array(0..<channels)
        guard last > first else { return 0 }
        var sum = 0.0
        for frame in first..<last {
            for c in picked {
                let at = frame * frameBytes + c * 2
                let value = Double(Int16(bitPattern: UInt16(data[at]) | UInt16(data[at + 1]) << 8))
                sum += value * value
            }
        }
        return (sum / Double((last - first) * picked.count)).squareRoot()
    }
}
