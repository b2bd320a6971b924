// yt-gst — the one stream a hub serves (the sender's playlist), as Snapcast's stream object.

/// The sender's stream in Snapcast's terms: its id (the first destination, "rtp://239.255.78.1:5004"), status,
/// URI and properties (playback status, now playing, what it can do), read from the stream's model.
///
/// The position is worked out when asked: the model's seconds move only with its status ticks, which a sender
/// without a status line does not have (and the hub adds no timer), so the position at the last change goes on
/// with the clock while playing.
/// - Note: Not Sendable: used on the main loop's thread only.
final class HubStream {
    let id: String
    let model: StreamModel
    private var mark: Mark?

    /// The position at the last change, what the model said then (its seconds and file), when, and whether it
    /// was playing from then on.
    private struct Mark {
        var seconds: Double
        var modelSeconds: Double?
        var path: String?
        var at: ContinuousClock.Instant
        var playing: Bool
    }

    init(id: String, model: StreamModel) { (self.id, self.model) = (id, model) }

    /// Takes a change of the model (a file, pause, seek...): the position goes on from here.
    func changed() {
        mark = position.map {
            Mark(seconds: $0, modelSeconds: model.seconds, path: model.path, at: .now, playing: !model.paused)
        }
    }

    /// Seconds into the file going out now (the model's own when it moved since the last change: a status, a
    /// seek, another file); nil before the first file.
    var position: Double? {
        guard let mark, mark.modelSeconds == model.seconds, mark.path == model.path else { return model.seconds }
        guard mark.playing else { return mark.seconds }
        let moved = mark.seconds + (ContinuousClock.now - mark.at) / .seconds(1)
        return model.duration.map { min(moved, $0) } ?? moved
    }

    var json: JSONValue {
        .object([
            ("id", .string(id)), ("properties", properties), ("status", model.paused ? "idle" : "playing"),
            ("uri", uri),
        ])
    }

    /// Snapcast's (MPRIS-like) stream properties: playback, order, volume, position and now playing; every
    /// command is taken (a pipe cannot seek).
    var properties: JSONValue {
        .object([
            ("canControl", true), ("canGoNext", true), ("canGoPrevious", true), ("canPause", true),
            ("canPlay", true), ("canSeek", .bool(model.duration != nil)),
            ("loopStatus", .string(model.loop.rawValue)),
            ("metadata", metadata),
            ("playbackStatus", model.paused ? "paused" : "playing"),
            ("position", position.map { .number($0) } ?? .null),
            ("shuffle", .bool(model.shuffle)),
            ("volume", .number(Double(model.volumePercent))),
        ])
    }

    /// Now playing, as MPRIS's metadata in Snapcast's names: title (the tag, else the file's name), artist (a
    /// list), album, duration (seconds) and the file.
    private var metadata: JSONValue {
        var members: [(String, JSONValue)] = []
        if let album = model.album { members.append(("album", .string(album))) }
        if let artist = model.artist { members.append(("artist", .array([.string(artist)]))) }
        if let duration = model.duration { members.append(("duration", .number(duration))) }
        if let title = model.title { members.append(("title", .string(title))) }
        if let path = model.path { members.append(("url", .string(path))) }
        return .object(members)
    }

    /// Snapcast's parsed URI: scheme, host (with port), path and query of the id. The query has a `name` (the id,
    /// unless it names itself), as every Snapcast source has: clients show the stream by it (PyPI's snapcast: None
    /// without it, and Home Assistant lists sources by that name).
    private var uri: JSONValue {
        let separator = id.firstRange(of: "://")
        let scheme = separator.map { String(id[..<$0.lowerBound]) } ?? ""
        let rest = separator.map { id[$0.upperBound...] } ?? id[...]
        let beforeQuery = rest.prefix { $0 != "?" }
        let query = rest.dropFirst(beforeQuery.count + 1)
        let host = beforeQuery.prefix { $0 != "/" }
        var pairs: [(String, JSONValue)] = query.split(separator: "&").map { pair in
            let parts = pair.split(separator: "=", maxSplits: 1)
            return (String(parts[0]), .string(parts.count > 1 ? String(parts[1]) : ""))
        }
        if !pairs.contains(where: { $0.0 == "name" }) { pairs.append(("name", .string(id))) }
        return .object([
            ("fragment", ""), ("host", .string(String(host))),
            ("path", .string(String(beforeQuery.dropFirst(host.count)))),
            ("query", .object(pairs)), ("raw", .string(id)), ("scheme", .string(scheme)),
        ])
    }
}
