// yt-gst — what a broadcast builds: one decode and pacing, then an encoder and a sink per destination.
import GstPlayer
import WAV

/// The codec of Icecast streams.
public enum BroadcastCodec: String, Sendable, CaseIterable {
    /// MP3 at a constant bitrate: every browser, phone and radio player plays it, and titles reach them as ICY
    /// metadata. The default.
    case mp3
    /// Ogg Vorbis. Its title is the first file's (Vorbis comments in the stream's headers).
    case vorbis
    /// Ogg Opus: the best quality per bit; its title is the first file's, as for Vorbis.
    case opus

    public static let defaultCodec = BroadcastCodec.mp3
    public static let defaultBitrate = 128

    /// Whether Icecast can change the mount's title mid-stream (`/admin/metadata`): for MP3 it sends ICY
    /// metadata. Icecast 2.4 refuses it for Opus; for Vorbis it starts a new chained Ogg stream with new headers
    /// (which decoders that link one pad, and the tests' own decode, failed on) and keeps the old ARTIST. So Ogg
    /// streams keep their first title.
    public var takesTitleUpdates: Bool { self == .mp3 }

    /// "MP3", "Vorbis", "Opus".
    public var name: String {
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

    /// The encoder's bitrate property value for `kilobits` (lame counts kbit/s, the others bit/s), within what the
    /// encoder takes: vorbisenc stops at 250 kbit/s (a value past it was ignored, leaving its default quality).
    func bitrateValue(kilobits: Int) -> Int {
        switch self {
        case .mp3: kilobits
        case .vorbis: min(kilobits * 1000, 250_000)
        case .opus: kilobits * 1000
        }
    }
}

/// The broadcast's pipeline: the gapless chain's appsrc, converted once to the broadcast format, then (for several
/// destinations) split: a branch with its own encoder per Icecast mount (each a `shout2send`, named `icecast0`,
/// `icecast1`, ..., in a branch `mount0`, ... that reconnects alone) and one AAC encoder for the HLS directories
/// (each a segment sink, `hls0`, ..., whose playlist the session writes: see `HLSPlaylistFile`). `clocksync` paces
/// it in real time, before the split, so every branch (and the position, from which titles are timed) follows one
/// clock.
public struct BroadcastPlan: Sendable {
    /// Every branch encodes from this: 48 kHz stereo (what Opus runs at, and what every encoder here takes).
    static let rate = 48_000
    static let channels = 2

    public var targets: [BroadcastTarget]
    public var codec: BroadcastCodec
    /// kbit/s, for every encoder.
    public var bitrate: Int
    /// HLS segment duration (s) and segments kept in the playlist.
    public var segmentSeconds: Int
    public var playlistLength: Int

    public init(
        targets: [BroadcastTarget], codec: BroadcastCodec = .defaultCodec, bitrate: Int = BroadcastCodec.defaultBitrate,
        segmentSeconds: Int = 2, playlistLength: Int = 5
    ) {
        self.targets = targets
        self.codec = codec
        self.bitrate = bitrate
        self.segmentSeconds = segmentSeconds
        self.playlistLength = playlistLength
    }

    /// The Icecast destinations with the name of their sink element.
    public var icecastSinks: [(name: String, endpoint: IcecastEndpoint)] {
        targets.compactMap { if case .icecast(let endpoint) = $0 { endpoint } else { nil } }.enumerated().map {
            ("icecast\($0.offset)", $0.element)
        }
    }

    /// The HLS destinations with the name of their sink element.
    public var hlsSinks: [(name: String, directory: String, playlist: String)] {
        targets.compactMap { if case .hls(let directory, let playlist) = $0 { (directory, playlist) } else { nil } }
            .enumerated().map { ("hls\($0.offset)", $0.element.0, $0.element.1) }
    }

    /// "MP3 128 kbit/s", "MP3 128 kbit/s + HLS AAC".
    public var formatName: String {
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
        // volume mutes a paused broadcast (silence keeps the mounts' sources); at 1.0 it passes buffers through.
        let head =
            "appsrc name=src ! audioconvert name=convert ! audioresample ! capsfilter name=format ! volume name=volume"
            + " ! clocksync name=pace"
        if targets.count == 1, let sink = icecastSinks.first {
            let encoder = codec.launch(encoderNamed: BroadcastPlan.encoderName(of: sink.name))
            return "\(head) ! \(encoder) ! \(shout(sink.name))"
        }
        if targets.count == 1, let sink = hlsSinks.first {
            return "\(head) ! \(BroadcastPlan.aac) ! \(BroadcastPlan.segmenter(sink.name))"
        }
        // The Icecast mounts are branches added by `configure` (see `mountBranch`).
        var text = "\(head) ! tee name=split"
        if !hlsSinks.isEmpty {
            text += " split. ! queue ! \(BroadcastPlan.aac) ! tee name=segments"
            for sink in hlsSinks { text += " segments. ! queue ! \(BroadcastPlan.segmenter(sink.name))" }
        }
        return text
    }

    /// Whether each Icecast mount is a branch of its own that reconnects alone, the other destinations going on
    /// undisturbed (HLS segments keep coming, their numbers keep increasing). A sole destination instead waits for
    /// its server, and the broadcast resumes where it was.
    public var mountsReconnectAlone: Bool { targets.count > 1 }

    /// The name of the branch of an Icecast sink (`mountsReconnectAlone`): `mount0` for `icecast0`.
    private static func branchName(of sink: String) -> String { "mount" + sink.dropFirst("icecast".count) }

    /// The name of the encoder of an Icecast sink: `enc0` for `icecast0`.
    private static func encoderName(of sink: String) -> String { "enc" + sink.dropFirst("icecast".count) }

    /// The branch of one Icecast mount: its own encoder (so a new connection gets new Ogg headers) and sink.
    private func mountBranch(_ sink: String) -> String {
        "queue ! \(codec.launch(encoderNamed: BroadcastPlan.encoderName(of: sink))) ! \(shout(sink))"
    }

    /// Adds the branch of the Icecast sink `name` (with a new connection to its server) to a pipeline of
    /// several destinations, in place of the one it had.
    func addMountBranch(of name: String, to pipeline: Pipeline) throws(GstError) {
        guard let endpoint = icecastSinks.first(where: { $0.name == name })?.endpoint else { return }
        let branch = BroadcastPlan.branchName(of: name)
        pipeline.removeBranch(named: branch)
        try pipeline.addBranch(named: branch, mountBranch(name), after: "split") { pipeline throws(GstError) in
            try configureMount(name, endpoint, in: pipeline)
        }
    }

    /// The AAC encoder of HLS, named `aac`.
    private static let aac = "voaacenc name=aac ! aacparse"

    /// The HLS segment sink named `name`: MPEG-TS files cut at key units, one muxer for all of them (as hlssink2
    /// does: timestamps and continuity counters go on from segment to segment). Unlike hlssink2 it starts its file
    /// numbers where the session says, so a new pipeline goes on numbering; the session writes the playlist.
    private static func segmenter(_ name: String) -> String {
        "splitmuxsink name=\(name) muxer=mpegtsmux send-keyframe-requests=true reset-muxer=false"
    }

    /// A `shout2send` named `name`: it does not sync (`clocksync` paces) nor preroll; titles are announced by
    /// `BroadcastSession`, not taken from the stream's tags.
    private func shout(_ name: String) -> String {
        "shout2send name=\(name) sync=false async=false send-title-info=false"
    }

    /// Sets the user's values on a freshly parsed pipeline (never pasted into the launch text); each HLS sink
    /// numbers its segments from `firstSegment` of its name.
    func configure(_ pipeline: Pipeline, firstSegment: (String) -> Int) throws(GstError) {
        try pipeline.element(named: "format").set(
            "caps",
            to: Caps(
                mediaType: "audio/x-raw",
                fields: [("rate", .int(Int64(BroadcastPlan.rate))), ("channels", .int(Int64(BroadcastPlan.channels)))]))
        if !hlsSinks.isEmpty { try pipeline.element(named: "aac").set("bitrate", to: bitrate * 1000) }
        for sink in icecastSinks {
            if mountsReconnectAlone {
                try addMountBranch(of: sink.name, to: pipeline)
            } else {
                try configureMount(sink.name, sink.endpoint, in: pipeline)
            }
        }
        for sink in hlsSinks {
            let hls = try pipeline.element(named: sink.name)
            // A "%" of the directory is its own; the sink formats the location with the segment's number.
            try hls.set("location", to: sink.directory.replacing("%", with: "%%") + "/segment%05d.ts")
            try hls.set("max-size-time", to: segmentSeconds * 1_000_000_000)
            try hls.set("start-index", to: firstSegment(sink.name))
        }
    }

    /// Sets the bitrate of an Icecast encoder and the server of its sink.
    private func configureMount(_ name: String, _ endpoint: IcecastEndpoint, in pipeline: Pipeline) throws(GstError) {
        try pipeline.element(named: BroadcastPlan.encoderName(of: name)).set(
            "bitrate", to: codec.bitrateValue(kilobits: bitrate))
        let shout = try pipeline.element(named: name)
        try shout.set("ip", to: endpoint.host)
        try shout.set("port", to: endpoint.port)
        try shout.set("mount", to: endpoint.mount)
        try shout.set("username", to: endpoint.user)
        try shout.set("password", to: endpoint.password)
    }
}
