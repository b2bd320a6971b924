// yt-gst — how a WAV's samples are encoded.

/// How the samples of a WAV's data chunk are encoded, after resolving WAVE_FORMAT_EXTENSIBLE.
public enum SampleEncoding: Sendable, Equatable {
    /// Integer PCM. 8-bit WAV samples are unsigned, wider ones signed.
    case pcm
    /// IEEE float, 32 or 64 bits.
    case float
    /// Anything that needs a decoder (A-law, mu-law, ADPCM, GSM, MP3, an unknown tag or sub-format GUID).
    ///
    /// The header still parses so `info` can describe the file; `WAVFile.requirePlayableRaw()` refuses it.
    case compressed
}
