// yt-gst — the one error type of the Recording library.
import GstPlayer
import WAV

/// Why a recording did not start or stopped early. Every file it wrote is finished and valid; the cases name the
/// file or the pipeline they concern and keep the underlying error.
public enum RecordingError: Error, Sendable {
    /// The output file exists and `replacesExisting` is false: it is kept untouched.
    case outputExists(path: String)
    /// The pipeline did not build or start: a bad launch string, a missing element or appsink, a source that
    /// cannot open (`launch` is the whole launch string).
    case pipeline(GstError, launch: String)
    /// An element failed while recording (the source went away, a device error).
    case sourceFailed(GstError)
    /// The source's first buffer had no rate and channels (`caps`: what it had, if anything).
    case noRateAndChannels(caps: String?)
    /// The source gives other samples than the asked format (a whole `.pipeline` source).
    case formatMismatch(given: AudioFormat, expected: AudioFormat)
    /// A file could not be created.
    case cannotCreate(path: String, WAVWriteError)
    /// Writing failed (a full disk, an I/O error, a reader gone); the file holds `secondsKept` of audio.
    case writeFailed(path: String, WAVWriteError, secondsKept: Double)
    /// A file could not be finished (its header or last sync).
    case finishFailed(path: String, WAVWriteError)
}
