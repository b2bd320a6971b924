// yt-gst — `play --input-ipc-server`: a playback session seen and steered through mpv's JSON IPC.
import AppSrcFeeder
import GstPlayer

/// A playback session in mpv's terms: the shared `PlaybackModel` read as mpv's properties, mpv's commands sent
/// through it, and the session's events told as mpv's events.
///
/// Give it every session event after the model has taken it (`handle(_:)`).
/// - Note: Not Sendable: events and requests both arrive on the main loop's thread.
public final class PlaybackIPC: IPCSurface {
    public let dispatcher = IPCDispatcher()
    public let model: PlaybackModel
    /// Whether the session was asked for status events (see `requestHandled()`).
    private var statusRequested = false

    /// Listens at `socket` (see `IPCSocketPath`) for the session `model` follows.
    public init(socket: String, model: PlaybackModel) throws(IPCSocketError) {
        self.model = model
        try dispatcher.serve(self, at: socket)
    }

    /// Sends mpv's events for one session event (which the model has taken) and tells observers.
    public func handle(_ event: PlaybackSession.Event) {
        switch event {
        case .fileStarted:
            start()
        case .seeked:
            dispatcher.event("seek")
            dispatcher.event("playback-restart")
        case .fileFailed(let error):
            dispatcher.event("end-file", [("reason", "error"), ("file_error", .string("\(error)"))])
        case .ended(let ending):
            finish(ending)
            return
        case .status, .pausedChanged, .controlsChanged, .orderChanged, .tags, .warning, .fileSkipped, .nothingToPlay,
            .seekUnavailable,
            .commandFailed:
            break
        }
        dispatcher.propertiesChanged()
        requestHandled()
    }

    /// Asks the session for `.status` events at mpv's rate (`IPCDispatcher.rateLimit`) while a client observes a
    /// position and a file plays, and for none otherwise: a paused player, or one nobody watches, does not wake.
    /// (A client that leaves is noticed at the next status.)
    public func requestHandled() {
        let wanted =
            !model.paused && model.playing != nil && !dispatcher.observed.isDisjoint(with: rateLimitedProperties)
        guard wanted != statusRequested, let control = model.control else { return }
        statusRequested = wanted
        control.reportStatus(every: wanted ? IPCDispatcher.rateLimit : nil)
    }

    /// mpv's events for a file that starts: the last one's end-file, then start-file, file-loaded, playback-restart.
    private func start() {
        endFinished { $0 ? "stop" : "eof" }
        let id = entryID(model.playing)
        dispatcher.event("start-file", id)
        dispatcher.event("file-loaded")
        dispatcher.event("playback-restart")
    }

    /// end-file for the file that just ended, with the reason for whether a command moved on from it.
    private func endFinished(reason: (_ byCommand: Bool) -> String) {
        guard let finished = model.finished else { return }
        dispatcher.event("end-file", [("reason", .string(reason(finished.byCommand)))] + entryID(finished.playing))
    }

    private func entryID(_ playing: PlaybackModel.Playing?) -> [(String, JSONValue)] {
        playing?.entryID.map { [("playlist_entry_id", .number(Double($0)))] } ?? []
    }

    private func finish(_ ending: PlaybackSession.Ending) {
        switch ending {
        case .finished: endFinished { _ in "eof" }
        case .stopped: endFinished { _ in "quit" }
        case .failed: endFinished { _ in "error" }
        }
        close()
    }
}
