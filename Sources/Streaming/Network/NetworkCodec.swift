// yt-gst — the audio codecs `stream` can put on the wire.
import GstPlayer

/// The audio codec on the wire.
public enum NetworkCodec: String, Equatable, Sendable, CaseIterable {
    /// Linear 16-bit PCM, big-endian (RFC 3551).
    case l16
    /// Linear 24-bit PCM, big-endian (RFC 3190).
    case l24
    /// Opus (RFC 7587), always at a 48 kHz clock.
    case opus

    /// The RTP encoding name as caps spell it.
    public var encodingName: String {
        switch self {
        case .l16: "L16"
        case .l24: "L24"
        case .opus: "OPUS"
        }
    }

    /// What the Opus encoder is given: raw audio at 48 kHz (Opus's clock) with `channels`, in any sample format.
    public static func opusInput(channels: Int) -> Caps {
        Caps(mediaType: "audio/x-raw", fields: [("rate", .int(48_000)), ("channels", .int(Int64(channels)))])
    }
}
