// yt-gst — the byte order of a WAV's numbers and samples.

/// Byte order of multi-byte samples: RIFF/RF64 are little-endian, RIFX big-endian.
public enum ByteOrder: Sendable, Equatable {
    case little, big
}
