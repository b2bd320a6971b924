// yt-gst — the one error type of playback sessions.
import GstPlayer

/// What went wrong with a playback, with the file or the launch string it concerns.
///
/// Thrown by `PlaybackSession.run()` when nothing can play at all (`.launch`, `.noAudioOutput`); sent as
/// `PlaybackSession.Event.fileFailed` for one file (`.file`, `.pipeline`) while the rest of the list goes on.
public enum PlaybackError: Error, Sendable {
    /// The file could not be opened or read: its `WAVError` (or what a test's opener threw).
    case file(path: String, any Error)
    /// The pipeline failed, or could not start, while `path` played.
    case pipeline(path: String, GstError)
    /// The pipeline does not build from this launch string (parse error, missing element, no `appsrc name=src`, a
    /// property that does not take its value).
    case launch(String, GstError)
    /// The pipeline plays through autoaudiosink and there is no audio output (no sound server, no sound card).
    case noAudioOutput
}
