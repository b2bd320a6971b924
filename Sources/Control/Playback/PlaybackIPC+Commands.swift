// yt-gst — mpv's commands for `play` on the IPC socket, mapped onto the session's commands.
import AppSrcFeeder

extension PlaybackIPC {
    public var commandNames: [String] {
        [
            "seek", "playlist-next", "playlist-prev", "playlist-play-index", "loadfile", "stop",
            "quit",
        ]
    }

    public func run(_ name: String, _ arguments: [JSONValue]) throws(IPCError) -> JSONValue? {
        guard model.control != nil else { throw .commandFailed }
        switch name {
        case "seek": try seek(arguments)
        case "playlist-next", "playlist-prev":
            guard model.skip(by: name == "playlist-next" ? 1 : -1) else { throw .commandFailed }
        case "playlist-play-index":
            guard arguments.count == 1 else { throw .invalidParameter }
            try play(index: try IPCValue.number(arguments[0]))
        case "loadfile": return try load(arguments)
        case "stop", "quit": model.stop()
        default: throw .invalidParameter
        }
        return nil
    }

    /// `seek TARGET [relative|absolute|absolute-percent|relative-percent][+exact|+keyframes]`.
    private func seek(_ arguments: [JSONValue]) throws(IPCError) {
        guard (1...3).contains(arguments.count) else { throw .invalidParameter }
        let amount = try IPCValue.number(arguments[0])
        let flags = arguments.count > 1 ? (arguments[1].string ?? "") : "relative"
        let mode = flags.split(separator: "+").first.map(String.init) ?? "relative"
        guard let now = model.timePosition else { throw .commandFailed }
        let duration = model.playing?.duration ?? 0
        switch mode {
        case "relative", "": try seek(to: now + amount)
        case "absolute": try seek(to: amount < 0 ? duration + amount : amount)
        case "absolute-percent": try seek(to: amount / 100 * duration)
        case "relative-percent": try seek(to: now + amount / 100 * duration)
        default: throw .invalidParameter
        }
    }

    /// Seeks within the playing file (past its end: the next file).
    func seek(to seconds: Double) throws(IPCError) {
        guard model.seek(to: seconds) else { throw .commandFailed }
    }

    func play(index: Double) throws(IPCError) {
        guard index.rounded() == index, index >= 0, index < Double(Int.max), model.play(index: Int(index)) else {
            throw .invalidParameter
        }
    }

    /// `loadfile PATH [replace|append|append-play]`: only a WAV file that opens is taken; returns its entry id.
    private func load(_ arguments: [JSONValue]) throws(IPCError) -> JSONValue {
        guard (1...4).contains(arguments.count), var path = arguments[0].string else { throw .invalidParameter }
        let mode = arguments.count > 1 ? (arguments[1].string ?? "") : "replace"
        guard ["replace", "append", "append-play"].contains(mode) else { throw .invalidParameter }
        if path.hasPrefix("file://") { path = String(path.dropFirst("file://".count)) }
        guard PlaybackModel.isPlayable(path) else { throw .loadingFailed }
        let id = model.load(path, replace: mode == "replace")
        return .object([("playlist_entry_id", .number(Double(id)))])
    }
}
