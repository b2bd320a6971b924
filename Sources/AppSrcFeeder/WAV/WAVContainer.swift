// yt-gst — the container formats a WAV comes in.

/// The container that holds the chunks.
public enum WAVContainer: String, Sendable, Equatable {
    case riff = "RIFF"
    case rifx = "RIFX"
    case rf64 = "RF64"
    case bw64 = "BW64"
    /// Sony Wave64: GUID chunk ids, 64-bit sizes that include the 24-byte chunk header, 8-byte alignment.
    case wave64 = "Wave64"
}
