// yt-gst — `receive` on MPRIS: a room's volume and mute from the desktop, the stream's title in its media widget.
import GstPlayer
import Streaming

/// A receiver published through MPRIS 2 (see `MPRISService`), read from and steered through the same `ReceiveModel`
/// as the IPC socket.
///
/// MPRIS has no mute: a live stream cannot pause, so Pause mutes it, Play unmutes it and PlaybackStatus says
/// "Paused" while it is muted; Volume is the volume, muted or not.
/// Stop and Quit end the receiver; it cannot seek or change track.
/// - Note: Not Sendable: events and D-Bus calls both arrive on the main loop's thread.
public final class ReceiveMPRIS: MPRISTarget {
    public let model: ReceiveModel
    private var service: MPRISService?

    /// Publishes the receiver `model` follows; nil, silently, without a session bus.
    public init?(model: ReceiveModel) {
        self.model = model
        guard let service = MPRISService(target: self) else { return nil }
        self.service = service
    }

    /// The name owned on the bus.
    public var busName: String? { service?.name }

    /// Tells the desktop what the event (which the model has taken) changed.
    public func handle(_ event: ReceiveSession.Event) { service?.changed() }

    /// Leaves the bus (once).
    public func close() {
        service?.close()
        service = nil
    }

    public var playerProperties: [String: DBusValue] {
        [
            "PlaybackStatus": .string(model.muted ? "Paused" : "Playing"), "LoopStatus": .string("None"),
            "Rate": .double(1),
            "Shuffle": .bool(false), "Volume": .double(model.volume), "Position": .int64(0),
            "Metadata": .dictionary(
                ["mpris:trackid": .objectPath("/org/yt_gst/track/0"), "xesam:title": .string(model.title)]),
            "MinimumRate": .double(1), "MaximumRate": .double(1), "CanGoNext": .bool(false),
            "CanGoPrevious": .bool(false), "CanPlay": .bool(true), "CanPause": .bool(true), "CanSeek": .bool(false),
            "CanControl": .bool(true),
        ]
    }

    public func call(_ method: String, _ arguments: [DBusValue?]) throws(DBusError) {
        switch method {
        case "Play": model.setMuted(false)
        case "Pause": model.setMuted(true)
        case "PlayPause": model.setMuted(!model.muted)
        case "Stop", "Quit": model.stop()
        case "Next", "Previous", "Seek", "SetPosition": return  // a live stream: nothing to move to
        case "OpenUri": throw DBusError(.notSupported, "a receiver plays the stream it was started on")
        default: throw DBusError(.unknownMethod, "no method \(method)")
        }
    }

    public func setProperty(_ name: String, to value: DBusValue?) throws(DBusError) {
        switch name {
        case "Volume":
            guard let volume = value?.double, volume.isFinite else {
                throw DBusError(.invalidArgs, "Volume cannot be \(value.map { "\($0)" } ?? "of this type")")
            }
            model.setVolume(volume)
        default:
            throw DBusError(.propertyReadOnly, "\(name) cannot be set on a receiver")
        }
    }
}
