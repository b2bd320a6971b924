// yt-gst — how a WAV's samples are pushed: as stored, or widened.
import GstPlayer

/// How the feeder turns a data chunk's bytes into the bytes it pushes.
public enum FeedLayout: Sendable, Equatable {
    /// Pushed as stored, in this raw format.
    case asStored(AudioFormat)
    /// Packed integers of 5 to 7 bytes, for which GStreamer has no raw format: widened to F64LE on the way, exactly
    /// (a double holds 53 bits).
    case widenedToFloat64(bytesPerSample: Int)

    /// Bytes pushed per stored byte, as a ratio (pushed, stored) per sample.
    var bytesPerSample: (pushed: Int, stored: Int)? {
        if case .widenedToFloat64(let stored) = self { return (8, stored) }
        return nil
    }
}
