// yt-gst — `stream --input-ipc-server`: a stream seen and steered through mpv's JSON IPC.
import Streaming

/// A stream in mpv's terms: `pause`, `time-pos` (seconds into the file going out), `duration`, `media-title`,
/// `path`, `playlist-pos`, `loop-file`, `loop-playlist`, `shuffle`, `volume` (percent, mpv's cubic curve); the
/// commands `seek`, `playlist-next`, `playlist-prev`, `stop` and `quit`.
///
/// Give it every session event after the model has taken it (`handle(_:)`).
/// - Note: Not Sendable: events and requests both arrive on the main loop's thread.
public final class StreamIPC: IPCSurface {
    public let dispatcher = IPCDispatcher()
    public let model: StreamModel

    /// Listens at `socket` (see `IPCSocketPath`) for the stream `model` follows.
    public init(socket: String, model: StreamModel) throws(IPCSocketError) {
        self.model = model
        try dispatcher.serve(self, at: socket)
    }

    /// Tells observers what the event changed; a new file is mpv's `file-loaded`, a seek's landing its `seek`.
    public func handle(_ event: StreamSession.Event) {
        if case .fileChanged = event { dispatcher.event("file-loaded") }
        if case .seeked = event { dispatcher.event("seek") }
        dispatcher.propertiesChanged()
    }

    public var propertyNames: [String] {
        [
            "pause", "time-pos", "duration", "media-title", "path", "playlist-pos", "loop-file", "loop-playlist",
            "shuffle", "volume",
        ]
    }

    public var rateLimitedProperties: Set<String> { ["time-pos"] }

    public var commandNames: [String] { ["seek", "playlist-next", "playlist-prev", "stop", "quit"] }

    public func property(_ name: String) -> JSONValue? {
        switch name {
        case "pause": .bool(model.paused)
        case "time-pos": model.seconds.map { .number($0) }
        case "duration": model.duration.map { .number($0) }
        case "media-title": model.title.map { .string($0) }
        case "path": model.path.map { .string($0) }
        case "playlist-pos": model.position.map { .number(Double($0)) }
        case "loop-file": model.loop == .track ? "inf" : false
        case "loop-playlist": model.loop == .playlist ? "inf" : false
        case "shuffle": .bool(model.shuffle)
        case "volume": .number(Double(model.volumePercent))
        default: nil
        }
    }

    /// Loops as mpv takes them: "inf" (true, "yes") or "no" (false); no count of passes.
    public func setProperty(_ name: String, to value: JSONValue) throws(IPCError) {
        switch name {
        case "pause": model.setPaused(try IPCValue.flag(value))
        case "loop-file", "loop-playlist":
            let mode: LoopMode = name == "loop-file" ? .track : .playlist
            let on = value == "inf" ? true : try IPCValue.flag(value)
            if on || model.loop == mode { model.setLoop(on ? mode : .none) }
        case "shuffle": model.setShuffle(try IPCValue.flag(value))
        case "volume": model.setVolume(percent: Int(try IPCValue.number(value).rounded()))
        default: throw .propertyUnavailable
        }
    }

    public func run(_ name: String, _ arguments: [JSONValue]) throws(IPCError) -> JSONValue? {
        switch name {
        case "seek": try seek(arguments)
        case "playlist-next": model.skip(by: 1)
        case "playlist-prev": model.skip(by: -1)
        default: model.stop()
        }
        return nil
    }

    /// `seek SECONDS [relative|absolute]` within the file going out (past its end: the next file).
    private func seek(_ arguments: [JSONValue]) throws(IPCError) {
        guard (1...2).contains(arguments.count) else { throw .invalidParameter }
        let seconds = try IPCValue.number(arguments[0])
        switch arguments.count > 1 ? arguments[1].string?.split(separator: "+").first ?? "" : "relative" {
        case "relative", "": model.seek(by: seconds)
        case "absolute": model.seek(to: seconds)
        default: throw .invalidParameter
        }
    }
}
