// yt-gst — the properties of `play` on the IPC socket, as mpv names and types them.
import AppSrcFeeder

extension PlaybackIPC {
    public var propertyNames: [String] {
        [
            "pause", "volume", "mute", "speed", "time-pos", "playback-time", "duration", "percent-pos",
            "media-title", "filename", "path", "playlist", "playlist-pos", "playlist-count", "loop-file",
            "loop-playlist", "shuffle", "idle-active", "metadata",
        ]
    }

    public var rateLimitedProperties: Set<String> { ["time-pos", "playback-time", "percent-pos"] }

    public func property(_ name: String) -> JSONValue? {
        let playing = model.playing
        let timePosition = model.timePosition
        switch name {
        case "pause": return .bool(model.paused)
        case "volume": return .number((model.volume * 100).rounded())
        case "mute": return .bool(model.muted)
        case "speed": return .number(model.rate)
        case "time-pos", "playback-time": return timePosition.map { .number($0) }
        case "duration": return playing?.duration.map { .number($0) }
        case "percent-pos":
            guard let seconds = timePosition, let duration = playing?.duration, duration > 0 else { return nil }
            return .number(seconds / duration * 100)
        case "media-title":
            return playing.map { .string($0.title) }
        case "filename": return playing.map { .string(PlaybackModel.filename($0.file.path)) }
        case "path": return playing.map { .string($0.file.path) }
        case "playlist": return .array(model.entries.enumerated().map { entry(at: $0.offset, $0.element) })
        case "playlist-pos": return .number(Double(playing?.file.index ?? -1))
        case "playlist-count": return .number(Double(model.entries.count))
        case "loop-file": return model.repeatEachFile ? "inf" : false
        case "loop-playlist":
            return model.passes == nil ? "inf" : model.passes == 1 ? false : .number(Double(model.passes ?? 1))
        case "shuffle": return .bool(model.shuffle)
        case "idle-active": return .bool(playing == nil)
        case "metadata": return playing.map { .object($0.metadata.map { ($0.0, .string($0.1)) }) }
        default: return nil
        }
    }

    /// A playlist entry as mpv lists it: filename, id, and current/playing on the one playing.
    private func entry(at index: Int, _ entry: (id: Int, path: String)) -> JSONValue {
        var fields: [(String, JSONValue)] = [("filename", .string(entry.path))]
        if model.playing?.file.index == index { fields += [("current", true), ("playing", true)] }
        return .object(fields + [("id", .number(Double(entry.id)))])
    }

    /// An mpv loop value as passes through the list: "inf" (or true, "yes") for ever (nil), "no" (or false) once, a
    /// number N: N times (as mpv's loop-playlist).
    private static func passes(_ value: JSONValue) throws(IPCError) -> Int? {
        if value == "inf" { return nil }
        if case .number(let count) = value {
            guard count.rounded() == count, count >= 1, count < 1_000_000 else { throw .unsupportedFormat }
            return Int(count)
        }
        return try IPCValue.flag(value) ? nil : 1
    }

    public func setProperty(_ name: String, to value: JSONValue) throws(IPCError) {
        guard model.control != nil else { throw .propertyUnavailable }
        switch name {
        case "pause": model.setPaused(try IPCValue.flag(value))
        case "mute": model.setMuted(try IPCValue.flag(value))
        case "volume": model.setVolume(try IPCValue.number(value) / 100)
        case "speed": model.setRate(try IPCValue.number(value))
        case "time-pos", "playback-time":
            try seek(to: try IPCValue.number(value))
        case "percent-pos":
            guard let duration = model.playing?.duration else { throw .propertyUnavailable }
            try seek(to: try IPCValue.number(value) / 100 * duration)
        case "playlist-pos":
            try play(index: try IPCValue.number(value))
        // A number of extra plays of each file is not supported: "inf" (true, "yes") or "no" (false).
        case "loop-file":
            guard model.setLoopFile(value == "inf" ? true : try IPCValue.flag(value)) else {
                throw .propertyUnavailable
            }
        case "loop-playlist":
            guard model.setLoopPlaylist(passes: try Self.passes(value)) else { throw .propertyUnavailable }
        case "shuffle": model.setShuffle(try IPCValue.flag(value))
        default:
            throw .propertyUnavailable
        }
    }
}
