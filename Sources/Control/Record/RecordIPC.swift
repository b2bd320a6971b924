// yt-gst — `record --input-ipc-server`: a recording seen and steered through mpv's JSON IPC.
import Recording

/// A recording in mpv's terms: `pause`, `time-pos` (seconds written), `peak` (dBFS per channel), `path`,
/// `split-index`, `markers`; the commands `marker` (a cue point), `stop` and `quit`.
///
/// Give it every session event after the model has taken it (`handle(_:)`).
/// - Note: Not Sendable: events and requests both arrive on the main loop's thread.
public final class RecordIPC: IPCSurface {
    public let dispatcher = IPCDispatcher()
    public let model: RecordModel

    /// Listens at `socket` (see `IPCSocketPath`) for the recording `model` follows.
    public init(socket: String, model: RecordModel) throws(IPCSocketError) {
        self.model = model
        try dispatcher.serve(self, at: socket)
    }

    /// Tells observers what the event changed; `marker` events for markers; the end closes the socket.
    public func handle(_ event: RecordSession.Event) {
        switch event {
        case .markerAdded(let number, let seconds):
            dispatcher.event("marker", [("number", .number(Double(number))), ("time", .number(seconds))])
        case .ended:
            close()
            return
        default:
            break
        }
        dispatcher.propertiesChanged()
    }

    public var propertyNames: [String] { ["pause", "time-pos", "peak", "path", "split-index", "markers"] }

    public var rateLimitedProperties: Set<String> { ["time-pos", "peak"] }

    public var commandNames: [String] { ["marker", "stop", "quit"] }

    public func property(_ name: String) -> JSONValue? {
        switch name {
        case "pause": .bool(model.paused)
        case "time-pos": model.seconds.map { .number($0) }
        case "peak": .array(model.peaks.map(IPCValue.finite))
        case "path": model.path.map { .string($0) }
        case "split-index": model.splitIndex.map { .number(Double($0)) }
        case "markers": .number(Double(model.markers))
        default: nil
        }
    }

    public func setProperty(_ name: String, to value: JSONValue) throws(IPCError) {
        guard name == "pause" else { throw .propertyUnavailable }
        model.setPaused(try IPCValue.flag(value))
    }

    public func run(_ name: String, _ arguments: [JSONValue]) throws(IPCError) -> JSONValue? {
        name == "marker" ? model.addMarker() : model.stop()
        return nil
    }
}
