// yt-gst — a WAV's report as JSON (`info --json`), written without Foundation.
import GstPlayer
import WAV

extension WAVReport {
    /// The report as one JSON object (`info --json` prints an array of them).
    public var json: String {
        let format = wav.format
        var fields: [(String, String)] = [
            ("file", JSON.string(path)),
            ("container", JSON.string(wav.container.rawValue)),
            ("formatTag", "\(format.formatTag)"),
            ("formatName", JSON.string(format.formatName)),
            ("subFormatTag", format.subFormatTag.map { "\($0)" } ?? "null"),
            ("sampleFormat", format.rawSampleFormat.map { JSON.string($0.rawValue) } ?? "null"),
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

}
