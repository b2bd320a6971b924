// yt-gst — everything that can stop a streaming session, with the URL, element or port it concerns.
import GstPlayer

/// Why a streaming session (`ReceiveSession`, `HTTPReceiveSession`, `StreamSession`, `BroadcastSession`) could not
/// run, or what ended it: each case carries the URL (as the caller gave it), the file, the element or the port
/// concerned, and the underlying error. Callers decide on the case, never on text.
public enum StreamingError: Error, Sendable {
    /// A host that cannot be resolved or reached; the problem's text starts with the URL.
    case address(NetworkAddress.Problem)
    /// An SDP file that cannot be read or used.
    case sdp(path: String, SDPError)
    /// The default output was asked for and this machine has none (no PulseAudio server, no sound card).
    case noAudioOutput
    /// The pipeline cannot be made from the caller's output description (`output`): a parse error, or an element
    /// that is not installed (`error.kind == .missingElement`).
    case launch(GstError, output: String)
    /// GStreamer stopped the stream from `url` (an element's error, a refused state change). Over SRT `srt` is
    /// the endpoint as resolved, and `connected` says whether data had arrived from the network.
    case stream(GstError, url: String, srt: SRTEndpoint? = nil, connected: Bool = false)
    /// The receiver's ports (`port` and the next) could not be opened while it waited for the sender.
    case socket(GstError, url: String, port: Int)
    /// PTP cannot run here (no gst-ptp-helper, or ports 319-320 taken).
    case clockUnavailable(ReferenceClock)
    /// An NTP or PTP clock that did not answer within `limit`: a receiver's for the stream at `url`, or (nil) a
    /// sender's own.
    case clockSilent(ReferenceClock, url: String?, limit: Duration)
    /// An SRT listener rejected its caller before any audio (libsrt's reason).
    case srtRejected(SRTRejectReason, url: String)
    /// The SRT connection closed without the sender's end marker.
    case connectionClosed(url: String)
    /// The output got no end of stream within `limit` after the stream ended.
    case couldNotFinalise(url: String, limit: Duration)
    /// An HTTP server answered 404 for `url` before any audio.
    case notFound(url: String)
    /// An HTTP or Icecast server could not be reached at all (`problem`: "Connection refused", "timed out", ...).
    case cannotConnect(url: String, problem: String)

    // Sending (`StreamSession`, `BroadcastSession`).

    /// No file could be opened; each failure was an event (`fileFailed`).
    case nothingOpened
    /// Every file of a looped broadcast is empty: the loop would spin on nothing.
    case nothingToBroadcast
    /// Opus carries 1 or 2 channels; `file` (the first, whose format the stream takes) has more.
    case opusChannels(file: String, channels: Int)
    /// The RTP format of `file` has no static payload type, and no SDP is written to tell receivers.
    case needsSDP(file: String, rtpmap: String)
    /// The SDP file could not be written.
    case sdpNotWritten(path: String, problem: String)
    /// `file` needs another decoder than the files before it, and a stream keeps one pipeline.
    case needsAnotherDecoder(file: String)
    /// A stream's or broadcast's pipeline failed. `connected`: whether audio had gone out over the connection
    /// (SRT: it broke, rather than never came up).
    case pipeline(GstError, connected: Bool)
    /// An HLS destination directory does not exist.
    case noSuchDirectory(String)
    /// An HLS playlist in `directory` could not be written (`problem` names the file and why).
    case playlistNotWritten(directory: String, String)
    /// An Icecast server refused the source before any audio went out (a fault of the setup).
    case refused(IcecastEndpoint, IcecastRefusal)
    /// A lost Icecast server did not come back within the retry time.
    case gaveUp(IcecastEndpoint, seconds: Double)
}

/// What a streaming session warns about and goes on.
public enum StreamingWarning: Sendable {
    /// A WARNING from the pipeline (each kind is reported once).
    case pipeline(GstError)
    /// The sender at `sender` publishes no clock on UDP `port`: the stream plays unsynchronised.
    case noSenderClock(sender: String, port: Int)
    /// A delay was asked of a receiver that is not synchronised: only a synchronised one can move its output.
    case delayNeedsSync
    /// The audio server did not say where an output's stream plays within `milliseconds`
    /// (`ReceiverSync.outputPositionLimit`): that output starts off by up to as much and moves once to its place.
    case outputNotPlaced(milliseconds: Int)
}

/// Why a caller stopped a session.
public enum StopReason: Equatable, Sendable {
    /// A signal (SIGINT, SIGTERM) the caller caught.
    case interrupted(Int32)
    /// The caller asked (a control socket, a button).
    case requested
}
