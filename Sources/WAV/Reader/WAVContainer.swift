// yt-gst — the container formats a WAV comes in.

/// The container that holds the chunks.
public enum WAVContainer: String, Sendable, Equatable {
    /// The classic WAV: little-endian, 32-bit sizes, so at most 4 GiB.
    case riff = "RIFF"
    /// RIFF with big-endian numbers and samples (chunk ids stay as written).
    case rifx = "RIFX"
    /// EBU RF64 (Tech 3306): RIFF whose sizes of 0xFFFFFFFF are taken from a `ds64` chunk, for files over 4 GiB.
    case rf64 = "RF64"
    /// ITU-R BS.2088 BW64: the RF64 layout under its own id.
    case bw64 = "BW64"
    /// Sony Wave64: GUID chunk ids, 64-bit sizes that include the 24-byte chunk header, 8-byte alignment.
    case wave64 = "Wave64"
}
