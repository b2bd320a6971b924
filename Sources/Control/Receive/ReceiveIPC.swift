// yt-gst — `receive --input-ipc-server`: a receiver seen and steered through mpv's JSON IPC.
import Streaming

/// A receiver in mpv's terms: `volume` (0–1000, 100 = as received), `mute`, `delay` (ms, live), `sync` (the
/// clock's offset and round trip in µs, the output's drift in ppm; null unsynchronised), `media-title`, and the
/// commands `stop` and `quit`.
///
/// Give it every session event after the model has taken it (`handle(_:)`).
/// - Note: Not Sendable: events and requests both arrive on the main loop's thread.
public final class ReceiveIPC: IPCSurface {
    public let dispatcher = IPCDispatcher()
    public let model: ReceiveModel

    /// Listens at `socket` (see `IPCSocketPath`) for the receiver `model` follows.
    public init(socket: String, model: ReceiveModel) throws(IPCSocketError) {
        self.model = model
        try dispatcher.serve(self, at: socket)
    }

    /// Tells observers what the event (which the model has taken) changed.
    public func handle(_ event: ReceiveSession.Event) { dispatcher.propertiesChanged() }

    public var propertyNames: [String] { ["volume", "mute", "delay", "sync", "media-title", "idle-active"] }

    public var rateLimitedProperties: Set<String> { ["sync"] }

    public var commandNames: [String] { ["stop", "quit"] }

    public func property(_ name: String) -> JSONValue? {
        switch name {
        case "volume": .number((model.volume * 100).rounded())
        case "mute": .bool(model.muted)
        case "delay": .number(Double(model.delayMilliseconds))
        case "sync": model.sync.map(Self.sync)
        case "media-title": .string(model.title)
        case "idle-active": .bool(!model.receiving)
        default: nil
        }
    }

    /// The sync state: `offset` and `rtt` (µs) of the clock, `ppm` of the output, and whether the clock is lost.
    static func sync(_ summary: SyncSummary) -> JSONValue {
        .object([
            ("offset", summary.clock.offset.map(IPCValue.finite) ?? .null),
            ("rtt", summary.clock.roundTrip.map(IPCValue.finite) ?? .null),
            ("ppm", summary.output?.drift.map(IPCValue.finite) ?? .null),
            ("lost", .bool(summary.clock.lost)),
        ])
    }

    public func setProperty(_ name: String, to value: JSONValue) throws(IPCError) {
        switch name {
        case "volume": model.setVolume(try IPCValue.number(value) / 100)
        case "mute": model.setMuted(try IPCValue.flag(value))
        case "delay":
            let milliseconds = try IPCValue.number(value)
            guard abs(milliseconds) < 3_600_000 else { throw .unsupportedFormat }
            model.setDelay(milliseconds: Int(milliseconds.rounded()))
        default: throw .propertyUnavailable
        }
    }

    public func run(_ name: String, _ arguments: [JSONValue]) throws(IPCError) -> JSONValue? {
        model.stop()
        return nil
    }
}
