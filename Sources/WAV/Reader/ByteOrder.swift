// yt-gst — the byte order of a WAV's numbers and samples.

/// Byte order of multi-byte samples: RIFF/RF64 are little-endian, RIFX big-endian.
public enum ByteOrder: Sendable, Equatable {
    /// Least significant byte first: RIFF, RF64, BW64 and Wave64 files.
    case little
    /// Most significant byte first: RIFX files.
    case big
}
