// yt-gst — the unit a WAV's data chunk is fed in.

/// The unit the feeder pushes and times: frames, fixed-size codec blocks, or a byte stream a parser frames.
public enum Packetization: Sendable, Equatable {
    /// One frame is `blockAlign` bytes (PCM, float, A-law, mu-law): timestamps from the frame index.
    case frames
    /// Fixed-size blocks (`blockAlign` bytes) that each decode to `framesPerBlock` frames (IMA/MS ADPCM, GSM), or to
    /// an amount the header does not tell (WMA, G.726): then timestamps come from the average byte rate.
    case blocks(framesPerBlock: Int?)
    /// A byte stream with its own frame headers (MP3, AAC, AC-3, DTS): a parser finds the packets; timestamps come
    /// from the average byte rate.
    case stream
}
