// yt-gst — why a stream or a broadcast could not start or go on: the send side's typed errors.
import GstPlayer
import Streaming
import WAV

/// Why `StreamSession` or `BroadcastSession` failed, with the file, destination or element it concerns.
///
/// The send side's half of the library's error enum (`StreamingError` when the two halves meet); never an exit code
/// or a text to match: the command line words each case.
enum SendError: Error, Sendable {
    /// No file could be opened; each failure was an event (`fileFailed`).
    case nothingOpened
    /// Every file of a looped broadcast is empty: the loop would spin on nothing.
    case nothingToBroadcast
    /// Opus carries 1 or 2 channels; `file` (the first, whose format the stream takes) has more.
    case opusChannels(file: String, channels: Int)
    /// The RTP format of `file` has no static payload type, and no SDP is written to tell receivers.
    case needsSDP(file: String, rtpmap: String)
    /// A destination's host does not resolve, or there is no route to it.
    case unreachable(NetworkAddress.Problem)
    /// The reference clock cannot run on this machine (PTP without its helper or ports).
    case clockUnavailable(ReferenceClock)
    /// The reference clock did not answer within `limit`.
    case clockSilent(ReferenceClock, limit: Duration)
    /// The SDP file could not be written.
    case sdpNotWritten(path: String, problem: String)
    /// `file` needs another decoder than the files before it, and a stream keeps one pipeline.
    case needsAnotherDecoder(file: String)
    /// The pipeline failed. `connected`: whether audio had gone out over the connection (SRT: it broke, rather
    /// than never came up).
    case pipeline(GstError, connected: Bool)
    /// An Icecast server does not accept connections before the broadcast starts.
    case cannotConnect(IcecastEndpoint, problem: String)
    /// An HLS destination directory does not exist.
    case noSuchDirectory(String)
    /// An HLS playlist in `directory` could not be written (`problem` names the file and why).
    case playlistNotWritten(directory: String, String)
    /// An Icecast server refused the source before any audio went out (a fault of the setup).
    case refused(IcecastEndpoint, IcecastRefusal)
    /// A lost Icecast server did not come back within the retry time.
    case gaveUp(IcecastEndpoint, seconds: Double)
}

/// Why a session was told to stop (`stop(_:)`): the command line maps a signal to its exit code.
enum StopReason: Sendable, Equatable {
    /// A signal (SIGINT, SIGTERM) asked the process to stop.
    case signal(Int32)
    /// The embedding program asked.
    case requested
}
