// yt-gst — what a broadcast builds: one decode and pacing, then an encoder and a sink per destination.
import GstPlayer

/// The codec of Icecast streams.
enum BroadcastCodec: String, CaseIterable {
    /// MP3 at a constant bitrate: every browser, phone and radio player plays it, and titles reach them as ICY
    /// metadata. The default.
    case mp3
    /// Ogg Vorbis. Its title is the first file's (Vorbis comments in the stream's headers).
    case vorbis
    /// Ogg Opus: the best quality per bit; its title is the first file's, as for Vorbis.
    case opus

    static let defaultCodec = BroadcastCodec.mp3
    static let defaultBitrate = 128

    /// Whether Icecast can change the mount's title mid-stream (`/admin/metadata`): for MP3 it sends ICY
    /// metadata. Icecast 2.4 refuses it for Opus; for Vorbis it starts a new chained Ogg stream with new headers
    /// (which decoders that link one pad, and the tests' own decode, failed on) and keeps the old ARTIST. So Ogg
    /// streams keep their first title.
    var takesTitleUpdates: Bool { self == .mp3 }

    /// "MP3", "Vorbis", "Opus".
    var name: String {
        switch self {
        case .mp3: "MP3"
        case .vorbis: "Vorbis"
        case .opus: "Opus"
        }
    }

    /// The encoder and container; the encoder is named `name` so its bitrate can be set.
    func launch(encoderNamed name: String) -> String {
        switch self {
        case .mp3: "lamemp3enc name=\(name) target=bitrate cbr=true"
        case .vorbis: "vorbisenc name=\(name) ! oggmux"
        case .opus: "opusenc name=\(name) ! oggmux"
        }
    }

    /// The encoder's bitrate property value for `kilobits` (lame counts kbit/s, the others bit/s).
    func bitrateValue(kilobits: Int) -> String { self == .mp3 ? String(kilobits) : String(kilobits * 1000) }
}

/// The broadcast's pipeline: the gapless chain's appsrc, converted once to the broadcast format, then (for several
/// destinations) split: one encoder for the Icecast mounts (each a `shout2send`, named `icecast0`, `icecast1`, ...)
/// and one AAC encoder for the HLS directories (each an `hlssink2`, `hls0`, ...). `clocksync` paces it in real
/// time, before the split, so every branch (and the position, from which titles are timed) follows one clock.
struct BroadcastPlan {
    /// Every branch encodes from this: 48 kHz stereo (what Opus runs at, and what every encoder here takes).
    static let rate = 48_000
    static let channels = 2

    var targets: [BroadcastTarget]
    var codec: BroadcastCodec
    /// kbit/s, for every encoder.
    var bitrate: Int
    /// HLS segment duration (s) and segments kept in the playlist.
    var segmentSeconds: Int
    var playlistLength: Int

    /// The Icecast destinations with the name of their sink element.
    var icecastSinks: [(name: String, endpoint: IcecastEndpoint)] {
        targets.compactMap { if case .icecast(let endpoint) = $0 { endpoint } else { nil } }.enumerated().map {
            ("icecast\($0.offset)", $0.element)
        }
    }

    /// The HLS destinations with the name of their sink element.
    var hlsSinks: [(name: String, directory: String, playlist: String)] {
        targets.compactMap { if case .hls(let directory, let playlist) = $0 { (directory, playlist) } else { nil } }
            .enumerated().map { ("hls\($0.offset)", $0.element.0, $0.element.1) }
    }

    /// "MP3 128 kbit/s", "MP3 128 kbit/s + HLS AAC".
    var formatName: String {
        var parts: [String] = []
        if !icecastSinks.isEmpty { parts.append("\(codec.name) \(bitrate) kbit/s") }
        if !hlsSinks.isEmpty { parts.append("HLS AAC \(bitrate) kbit/s, \(segmentSeconds) s segments") }
        return parts.joined(separator: " + ")
    }

    /// The launch string: constant text with named elements; every user value is set as a property afterwards.
    ///
    /// A single destination gets a single thread, as `gst-launch ... ! shout2send` has: a tee and its queues
    /// (a thread each, woken for every encoded packet) come only when there are several.
    var launch: String {
        // clocksync paces every destination in real time. libshout would pace Icecast by itself, but it lets the
        // first seconds go at once: the position (and so each file's title) would then run ahead of the audio.
        let head =
            "appsrc name=src ! audioconvert name=convert ! audioresample ! capsfilter name=format ! clocksync name=pace"
        if targets.count == 1, let sink = icecastSinks.first {
            return "\(head) ! \(codec.launch(encoderNamed: "enc")) ! \(shout(sink.name))"
        }
        if targets.count == 1, let sink = hlsSinks.first {
            return "\(head) ! \(BroadcastPlan.aac) ! hlssink2 name=\(sink.name)"
        }
        var text = "\(head) ! tee name=split"
        if !icecastSinks.isEmpty {
            // One encoder for every mount, then a copy of the encoded stream each.
            text += " split. ! queue ! \(codec.launch(encoderNamed: "enc")) ! tee name=mounts"
            for sink in icecastSinks { text += " mounts. ! queue ! \(shout(sink.name))" }
        }
        if !hlsSinks.isEmpty {
            text += " split. ! queue ! \(BroadcastPlan.aac) ! tee name=segments"
            for sink in hlsSinks { text += " segments. ! queue ! hlssink2 name=\(sink.name)" }
        }
        return text
    }

    /// The AAC encoder of HLS, named `aac`.
    private static let aac = "voaacenc name=aac ! aacparse"

    /// A `shout2send` named `name`: it does not sync (`clocksync` paces) nor preroll; titles are announced by
    /// `BroadcastSession`, not taken from the stream's tags.
    private func shout(_ name: String) -> String {
        "shout2send name=\(name) sync=false async=false send-title-info=false"
    }

    /// Sets the user's values on a freshly parsed pipeline (never pasted into the launch text).
    func configure(_ pipeline: Pipeline) throws(GstError) {
        try pipeline.element(named: "format").set(
            "caps",
            to: Caps(
                mediaType: "audio/x-raw",
                fields: [("rate", .int(Int64(BroadcastPlan.rate))), ("channels", .int(Int64(BroadcastPlan.channels)))]))
        if !icecastSinks.isEmpty {
            try pipeline.element(named: "enc").set("bitrate", fromString: codec.bitrateValue(kilobits: bitrate))
        }
        if !hlsSinks.isEmpty { try pipeline.element(named: "aac").set("bitrate", fromString: String(bitrate * 1000)) }
        for sink in icecastSinks {
            let shout = try pipeline.element(named: sink.name)
            try shout.set("ip", fromString: sink.endpoint.host)
            try shout.set("port", fromString: String(sink.endpoint.port))
            try shout.set("mount", fromString: sink.endpoint.mount)
            try shout.set("username", fromString: sink.endpoint.user)
            try shout.set("password", fromString: sink.endpoint.password)
        }
        for sink in hlsSinks {
            let hls = try pipeline.element(named: sink.name)
            try hls.set("location", fromString: sink.directory + "/segment%05d.ts")
            try hls.set("playlist-location", fromString: sink.directory + "/" + sink.playlist)
            try hls.set("target-duration", fromString: String(segmentSeconds))
            try hls.set("playlist-length", fromString: String(playlistLength))
            // Keep a few more segments than the playlist names: a client that just read it can still fetch them.
            try hls.set("max-files", fromString: String(playlistLength + 3))
        }
    }
}
