// yt-gst — the names of the application messages the streaming sessions post to their own bus.
import GstPlayer

/// What a streaming session's elements and signal handlers tell its loop, as application messages on the bus (so
/// one loop makes every decision), and the marker a sender puts before its end over SRT.
enum ApplicationMessage: String, CaseIterable {
    /// The sender's end marker reached a receiver (its end of stream follows).
    case senderFinished = "yt-gst/sender-finished"
    /// An SRT listener rejected a caller (field `text`: libsrt's log line).
    case srtRejected = "yt-gst/srt-rejected"
    /// rtpbin received an RTCP BYE (field `ssrc`: the sender's).
    case rtpBye = "yt-gst/rtp-bye"
    /// An SRT listener accepted a caller.
    case callerAdded = "yt-gst/caller-added"
    /// An HTTP receiver's source ended (its end of stream is held back from the output).
    case sourceEnded = "yt-gst/source-ended"
    /// Not a bus message: the custom event a sender sends through GDP just before its end of stream over SRT, which
    /// the receiver turns into `senderFinished`.
    case endOfStream = "yt-gst/end-of-stream"

    /// The message an application message's structure is, when it is one of these.
    init?(_ structure: Structure) { self.init(rawValue: structure.name) }
}
