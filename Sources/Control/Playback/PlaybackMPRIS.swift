// yt-gst — `play` on MPRIS: the shared model as the Player interface's properties, its methods as model commands.
import AppSrcFeeder
import GstPlayer

/// A playback session published through MPRIS 2 (see `MPRISService`), read from and steered through the same
/// `PlaybackModel` as the IPC socket.
///
/// Give it every session event after the model has taken it (`handle(_:)`).
/// - Note: Not Sendable: events and D-Bus calls both arrive on the main loop's thread.
public final class PlaybackMPRIS: MPRISTarget {
    public let model: PlaybackModel
    private var service: MPRISService?

    /// Publishes the session `model` follows; nil, silently, without a session bus.
    public init?(model: PlaybackModel) {
        self.model = model
        guard let service = MPRISService(target: self) else { return nil }
        self.service = service
    }

    /// The name owned on the bus.
    public var busName: String? { service?.name }

    /// Tells the desktop what the event (which the model has taken) changed.
    public func handle(_ event: PlaybackSession.Event) {
        if case .seeked = event { service?.seeked(to: Self.microseconds(model.timePosition ?? 0)) }
        if case .ended = event {
            close()
            return
        }
        service?.changed()
    }

    /// Leaves the bus (once).
    public func close() {
        service?.close()
        service = nil
    }

    static func microseconds(_ seconds: Double) -> Int64 { Int64((seconds * 1_000_000).rounded()) }

    static func seconds(_ microseconds: Int64) -> Double { Double(microseconds) / 1_000_000 }

    // MARK: MPRISTarget

    public var playerProperties: [String: DBusValue] {
        let playing = model.playing
        let seekable = playing.map { !$0.file.isStream && $0.duration != nil } ?? false
        return [
            "PlaybackStatus": .string(playing == nil ? "Stopped" : model.paused ? "Paused" : "Playing"),
            "LoopStatus": .string(loopStatus), "Rate": .double(model.rate), "Shuffle": .bool(model.shuffle),
            "Metadata": .dictionary(metadata), "Volume": .double(model.volume),
            "Position": .int64(Self.microseconds(model.timePosition ?? 0)),
            "MinimumRate": .double(PlaybackSession.rateRange.lowerBound),
            "MaximumRate": .double(PlaybackSession.rateRange.upperBound),
            "CanGoNext": .bool(model.hasNext), "CanGoPrevious": .bool(model.hasPrevious),
            "CanPlay": .bool(playing != nil), "CanPause": .bool(playing != nil), "CanSeek": .bool(seekable),
            "CanControl": .bool(true),
        ]
    }

    private var loopStatus: String { model.repeatEachFile ? "Track" : model.passes == 1 ? "None" : "Playlist" }

    /// The playing file's track id: its place in the play order (a file played again is a new track).
    private var trackID: String? { model.playing.map { "/org/yt_gst/track/\($0.file.position)" } }

    private var metadata: [String: DBusValue] {
        guard let playing = model.playing, let trackID else { return [:] }
        var fields: [String: DBusValue] = [
            "mpris:trackid": .objectPath(trackID), "xesam:title": .string(playing.title),
        ]
        if let duration = playing.duration { fields["mpris:length"] = .int64(Self.microseconds(duration)) }
        if let artist = playing.tag("artist") { fields["xesam:artist"] = .strings([artist]) }
        if let album = playing.tag("album") { fields["xesam:album"] = .string(album) }
        if !playing.file.isStream, let url = FileURI.uri(for: playing.file.path) { fields["xesam:url"] = .string(url) }
        return fields
    }

    public func call(_ method: String, _ arguments: [DBusValue?]) throws(DBusError) {
        switch method {
        case "Play": if model.paused { model.setPaused(false) }
        case "Pause": if model.playing != nil && !model.paused { model.setPaused(true) }
        case "PlayPause": if model.playing != nil { model.setPaused(!model.paused) }
        case "Stop", "Quit": model.stop()
        case "Next": _ = model.skip(by: 1)
        case "Previous": _ = model.skip(by: -1)
        case "Seek":
            guard arguments.count == 1, case .int64(let offset)? = arguments[0] else { throw Self.badArguments(method) }
            guard let now = model.timePosition else { return }
            _ = model.seek(to: max(0, now + Self.seconds(offset)))
        case "SetPosition":
            guard arguments.count == 2, case .objectPath(let track)? = arguments[0], case .int64(let to)? = arguments[1]
            else { throw Self.badArguments(method) }
            // A stale track id (the track has changed since the caller looked) or a place outside it: ignored.
            guard track == trackID, let duration = model.playing?.duration, (0...duration).contains(Self.seconds(to))
            else { return }
            _ = model.seek(to: Self.seconds(to))
        case "OpenUri": try open(arguments)
        default: throw DBusError(.unknownMethod, "no method \(method)")
        }
    }

    /// `OpenUri`: a file:// URI of a WAV file replaces the list; anything else is an error.
    private func open(_ arguments: [DBusValue?]) throws(DBusError) {
        guard arguments.count == 1, case .string(let uri)? = arguments[0] else { throw Self.badArguments("OpenUri") }
        guard let path = FileURI.path(of: uri) else {
            throw DBusError(.notSupported, "yt-gst opens local file:// URIs only: \(uri)")
        }
        guard PlaybackModel.isPlayable(path) else { throw DBusError(.invalidArgs, "not a playable WAV file: \(path)") }
        _ = model.load(path, replace: true)
    }

    public func setProperty(_ name: String, to value: DBusValue?) throws(DBusError) {
        switch name {
        case "Volume":
            guard let volume = value?.double, volume.isFinite else { throw Self.badValue(name, value) }
            model.setVolume(min(max(volume, 0), 1))
        case "Rate":
            guard let rate = value?.double, PlaybackSession.rateRange.contains(rate) else {
                throw Self.badValue(name, value)
            }
            model.setRate(rate)
        case "LoopStatus":
            guard case .string(let status)? = value, ["None", "Track", "Playlist"].contains(status) else {
                throw Self.badValue(name, value)
            }
            // Playlist keeps looping each file off; Track leaves the list's loop as it is.
            guard model.setLoopFile(status == "Track"),
                status == "Track" || model.setLoopPlaylist(passes: status == "Playlist" ? nil : 1)
            else { throw DBusError(.notSupported, "a pipe plays: it cannot loop") }
        case "Shuffle":
            guard case .bool(let on)? = value else { throw Self.badValue(name, value) }
            model.setShuffle(on)
        default:
            throw DBusError(.propertyReadOnly, "\(name) is read-only")
        }
    }

    private static func badArguments(_ method: String) -> DBusError {
        DBusError(.invalidArgs, "wrong arguments for \(method)")
    }

    private static func badValue(_ name: String, _ value: DBusValue?) -> DBusError {
        DBusError(.invalidArgs, "\(name) cannot be \(value.map { "\($0)" } ?? "of this type")")
    }
}
