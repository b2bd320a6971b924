// yt-gst — `yt-gst info`: what a WAV file holds, from its header, as text or JSON.
import AppSrcFeeder
import GstPlayer
import WAV

struct InfoCommand {
    static let spec = CommandSpec(
        name: "info", abstract: "Show the format, length, chunks and warnings of WAV files.", operands: "FILE...",
        options: [OptionSpec(name: "json", help: "Print a JSON array with one object per file.")],
        discussion: """
            Shows the container (RIFF, RIFX, RF64, BW64, Wave64), the format and, for compressed audio, the codec's
            GStreamer caps and the installed decoders; the LIST/INFO tags, bext, cue points with their labels, smpl
            loops and inst; every chunk with its offset and size; and every warning.

            EXAMPLES:
              yt-gst info song.wav
              yt-gst info --json *.wav | jq '.[].duration'
            """)

    var files: [String]
    var json: Bool

    init(_ arguments: ParsedArguments) throws(UsageError) {
        guard !arguments.operands.isEmpty else { throw UsageError("no file given") }
        files = arguments.operands
        try StandardInput.check(files, command: "info")
        json = arguments.flags.contains("json")
    }

    func run() -> ExitCode {
        var anyFailed = false
        var objects: [String] = []
        for file in files {
            do {
                let (wav, _) = try WAVFile.open(path: file)
                if json {
                    objects.append(jsonObject(wav, path: file))
                } else {
                    Terminal.write(text(wav, path: file))
                }
            } catch {
                Terminal.error("yt-gst: \(file): \(error)")
                anyFailed = true
            }
        }
        if json { Terminal.write("[" + objects.joined(separator: ",\n") + "]\n") }
        return anyFailed ? .failure : .success
    }

    private func text(_ wav: WAVFile, path: String) -> String {
        let format = wav.format
        var lines = [path]
        func field(_ name: String, _ value: String) { lines.append("  " + name.padding(to: 14) + value) }
        field("container", wav.container.rawValue)
        field(
            "format",
            "\(FormatTag.hex(format.formatTag)) \(FormatTag.name(of: format.formatTag))"
                + (format.subFormatTag.map { " (sub-format \(FormatTag.hex($0)) \(FormatTag.name(of: $0)))" } ?? ""))
        field("sample format", format.rawSampleFormat ?? "compressed")
        field("rate", "\(format.sampleRate) Hz")
        field(
            "channels", "\(format.channels)" + (format.channelMask.map { " (mask 0x\(String($0, radix: 16)))" } ?? ""))
        field(
            "bits",
            format.validBits == format.bitsPerSample
                ? "\(format.bitsPerSample)" : "\(format.validBits) valid in \(format.bitsPerSample)")
        field("block align", "\(format.blockAlign)")
        if wav.lengthIsKnown {
            field("frames", "\(wav.frameCount)")
            field("duration", Self.duration(wav.durationSeconds))
            field("data", "\(wav.dataByteCount) bytes at offset \(wav.dataOffset)")
        } else {
            field("frames", "unknown (a streaming header: the audio runs to the end of the stream)")
            field("duration", "unknown")
            field("data", "to the end of the stream, from offset \(wav.dataOffset)")
        }
        if wav.isStream { field("stream", "read from a pipe: forward only; chunks after the data are not read") }
        if let codec = Self.codec(wav) {
            field("codec", codec.summary)
            field("decoder", codec.decoders.isEmpty ? "none installed" : codec.decoders.joined(separator: ", "))
        }
        for (name, lines) in Self.metadataLines(wav.metadata) {
            for (index, line) in lines.enumerated() { field(index == 0 ? name : "", line) }
        }
        for (index, chunk) in wav.chunks.enumerated() {
            field(index == 0 ? "chunks" : "", "\(chunk.id.padding(to: 4)) at \(chunk.offset), \(chunk.size) bytes")
        }
        for warning in wav.warnings { field("warning", warning) }
        return lines.joined(separator: "\n") + "\n"
    }

    private func jsonObject(_ wav: WAVFile, path: String) -> String {
        let format = wav.format
        var fields: [(String, String)] = [
            ("file", JSON.string(path)),
            ("container", JSON.string(wav.container.rawValue)),
            ("formatTag", "\(format.formatTag)"),
            ("formatName", JSON.string(format.formatName)),
            ("subFormatTag", format.subFormatTag.map { "\($0)" } ?? "null"),
            ("sampleFormat", format.rawSampleFormat.map(JSON.string) ?? "null"),
            ("sampleRate", "\(format.sampleRate)"),
            ("channels", "\(format.channels)"),
            ("channelMask", format.channelMask.map { "\($0)" } ?? "null"),
            ("bitsPerSample", "\(format.bitsPerSample)"),
            ("validBits", "\(format.validBits)"),
            ("blockAlign", "\(format.blockAlign)"),
            ("frames", wav.lengthIsKnown ? "\(wav.frameCount)" : "null"),
            ("duration", wav.lengthIsKnown ? "\(wav.durationSeconds)" : "null"),
            ("dataOffset", "\(wav.dataOffset)"),
            ("dataBytes", wav.lengthIsKnown ? "\(wav.dataByteCount)" : "null"),
            ("stream", wav.isStream ? "true" : "false"),
        ]
        let chunks = wav.chunks.map { chunk in
            JSON.object([("id", JSON.string(chunk.id)), ("offset", "\(chunk.offset)"), ("size", "\(chunk.size)")])
        }
        if let codec = Self.codec(wav) {
            var object: [(String, String)] = [("caps", JSON.string(codec.caps?.description ?? ""))]
            object.append(("framesPerBlock", codec.framesPerBlock.map { "\($0)" } ?? "null"))
            object.append(("averageBytesPerSecond", "\(format.averageBytesPerSecond)"))
            object.append(("decoders", "[" + codec.decoders.map(JSON.string).joined(separator: ",") + "]"))
            fields.append(("codec", JSON.object(object)))
        } else {
            fields.append(("codec", "null"))
        }
        fields.append(("factFrames", wav.factFrames.map { "\($0)" } ?? "null"))
        fields += Self.metadataJSON(wav.metadata)
        fields.append(("chunks", "[" + chunks.joined(separator: ",") + "]"))
        fields.append(("warnings", "[" + wav.warnings.map(JSON.string).joined(separator: ",") + "]"))
        return JSON.object(fields)
    }

    /// The codec of a compressed file: its caps, a one-line summary and the decoders installed for it.
    static func codec(_ wav: WAVFile) -> (caps: Caps?, summary: String, framesPerBlock: Int?, decoders: [String])? {
        let format = wav.format
        guard format.needsDecoder else { return nil }
        guard let caps = format.codecCaps else {
            return (nil, "no GStreamer caps for \(wav.codecDescription)", nil, [])
        }
        let fields = caps.fields.filter { $0.name != "codec_data" }.map { "\($0.name)=\($0.value.text)" }
        var summary = ([caps.mediaType] + fields).joined(separator: ", ")
        var framesPerBlock: Int?
        switch format.packetization {
        case .blocks(let frames?):
            framesPerBlock = frames
            summary += "; \(frames) frames per \(format.blockAlign)-byte block"
        case .blocks(nil): summary += "; \(format.blockAlign)-byte blocks"
        case .stream: summary += "; a stream the parser frames, \(format.averageBytesPerSecond) bytes/s"
        case .frames: break
        }
        return (caps, summary, framesPerBlock, Gst.decoders(forCaps: caps))
    }

    /// The metadata as (field name, lines) for the text output; each value on one line.
    static func metadataLines(_ metadata: WAVMetadata) -> [(String, [String])] {
        var groups: [(String, [String])] = []
        if !metadata.info.isEmpty {
            groups.append(("tags", metadata.info.map { $0.id + "  " + oneLine($0.value) }))
        }
        if let b = metadata.broadcast {
            var lines = [
                "description \"\(oneLine(b.description))\"", "originator \"\(oneLine(b.originator))\"",
                "reference \"\(oneLine(b.originatorReference))\"",
                "origination \(b.originationDate) \(b.originationTime)",
                "time reference \(b.timeReference) samples, version \(b.version)",
            ]
            if !b.codingHistory.isEmpty { lines.append("coding history \"\(oneLine(b.codingHistory))\"") }
            groups.append(("bext", lines))
        }
        if !metadata.cuePoints.isEmpty {
            groups.append(
                (
                    "cue points",
                    metadata.cuePoints.map { cue in
                        var line = "id \(cue.id) at frame \(cue.position)"
                        if let label = cue.label { line += " \"\(oneLine(label))\"" }
                        if let length = cue.length { line += ", \(length) frames long" }
                        if let note = cue.note { line += ", note \"\(oneLine(note))\"" }
                        return line
                    }
                ))
        }
        if let s = metadata.sampler {
            var lines = [
                "unity note \(s.midiUnityNote), pitch fraction \(s.midiPitchFraction), period \(s.samplePeriod) ns"
            ]
            lines += s.loops.map { loop in
                let kind =
                    ["forward", "alternating", "backward"].indices.contains(Int(loop.type))
                    ? ["forward", "alternating", "backward"][Int(loop.type)] : "type \(loop.type)"
                return "loop \(loop.id) \(kind) \(loop.start)...\(loop.end), "
                    + (loop.playCount == 0 ? "forever" : "\(loop.playCount) times")
            }
            groups.append(("sampler", lines))
        }
        if let i = metadata.instrument {
            groups.append(
                (
                    "instrument",
                    [
                        "note \(i.unshiftedNote), fine tune \(i.fineTune) cents, gain \(i.gain) dB,"
                            + " notes \(i.lowNote)-\(i.highNote), velocities \(i.lowVelocity)-\(i.highVelocity)"
                    ]
                ))
        }
        return groups
    }

    static func metadataJSON(_ metadata: WAVMetadata) -> [(String, String)] {
        let info = metadata.info.map { JSON.object([("id", JSON.string($0.id)), ("value", JSON.string($0.value))]) }
        let tags = metadata.gstreamerTags.map {
            JSON.object([("name", JSON.string($0.name)), ("value", JSON.string($0.value))])
        }
        let bext =
            metadata.broadcast.map { b in
                JSON.object([
                    ("description", JSON.string(b.description)), ("originator", JSON.string(b.originator)),
                    ("originatorReference", JSON.string(b.originatorReference)),
                    ("originationDate", JSON.string(b.originationDate)),
                    ("originationTime", JSON.string(b.originationTime)),
                    ("timeReference", "\(b.timeReference)"), ("version", "\(b.version)"),
                    ("codingHistory", JSON.string(b.codingHistory)),
                ])
            } ?? "null"
        let cues = metadata.cuePoints.map { cue in
            JSON.object([
                ("id", "\(cue.id)"), ("position", "\(cue.position)"), ("label", cue.label.map(JSON.string) ?? "null"),
                ("note", cue.note.map(JSON.string) ?? "null"), ("length", cue.length.map { "\($0)" } ?? "null"),
            ])
        }
        let sampler =
            metadata.sampler.map { s in
                let loops = s.loops.map { loop in
                    JSON.object([
                        ("id", "\(loop.id)"), ("type", "\(loop.type)"), ("start", "\(loop.start)"),
                        ("end", "\(loop.end)"),
                        ("fraction", "\(loop.fraction)"), ("playCount", "\(loop.playCount)"),
                    ])
                }
                return JSON.object([
                    ("manufacturer", "\(s.manufacturer)"), ("product", "\(s.product)"),
                    ("samplePeriod", "\(s.samplePeriod)"),
                    ("midiUnityNote", "\(s.midiUnityNote)"), ("midiPitchFraction", "\(s.midiPitchFraction)"),
                    ("loops", "[" + loops.joined(separator: ",") + "]"),
                ])
            } ?? "null"
        let instrument =
            metadata.instrument.map { i in
                JSON.object([
                    ("unshiftedNote", "\(i.unshiftedNote)"), ("fineTune", "\(i.fineTune)"), ("gain", "\(i.gain)"),
                    ("lowNote", "\(i.lowNote)"), ("highNote", "\(i.highNote)"), ("lowVelocity", "\(i.lowVelocity)"),
                    ("highVelocity", "\(i.highVelocity)"),
                ])
            } ?? "null"
        return [
            ("info", "[" + info.joined(separator: ",") + "]"), ("tags", "[" + tags.joined(separator: ",") + "]"),
            ("bext", bext), ("cuePoints", "[" + cues.joined(separator: ",") + "]"), ("sampler", sampler),
            ("instrument", instrument),
        ]
    }

    /// Text on one line: line breaks become " / ", other control characters spaces.
    static func oneLine(_ text: String) -> String {
        var out = ""
        var lastBreak = false
        for scalar in text.unicodeScalars {
            if scalar == "\r" || scalar == "\n" {
                if !lastBreak, !out.isEmpty { out += " / " }
                lastBreak = true
                continue
            }
            lastBreak = false
            out.unicodeScalars.append(scalar.value < 0x20 ? " " : scalar)
        }
        return out.hasSuffix(" / ") ? String(out.dropLast(3)) : out
    }

    /// "m:ss.mmm".
    static func duration(_ seconds: Double) -> String {
        let millis = Int((seconds * 1000).rounded())
        let (minutes, secs, ms) = (millis / 60_000, millis / 1000 % 60, millis % 1000)
        let msText = String(ms)
        return "\(minutes):\(secs < 10 ? "0" : "")\(secs).\(String(repeating: "0", count: 3 - msText.count))\(msText)"
    }
}
