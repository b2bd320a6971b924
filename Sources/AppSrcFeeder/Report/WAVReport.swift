// yt-gst — what a WAV file holds, from its header, as values and as text: the report `info` prints.
import GstPlayer
import WAV

/// The description of one opened WAV: container, format, length, codec (with its GStreamer caps and the decoders
/// installed), metadata, chunks and warnings, rendered as text (`text`) or JSON (`json`, in WAVReport+JSON.swift).
public struct WAVReport {
    public let wav: WAVFile
    /// The path as the caller named the file (the first line of the text, "file" in JSON).
    public let path: String

    public init(_ wav: WAVFile, path: String) {
        self.wav = wav
        self.path = path
    }

    /// The report as `info` prints it: the path, then one "name  value" line per field.
    public var text: String {
        let format = wav.format
        var lines = [path]
        func field(_ name: String, _ value: String) { lines.append("  " + name.padding(to: 14) + value) }
        field("container", wav.container.rawValue)
        field(
            "format",
            "\(FormatTag.hex(format.formatTag)) \(FormatTag.name(of: format.formatTag))"
                + (format.subFormatTag.map { " (sub-format \(FormatTag.hex($0)) \(FormatTag.name(of: $0)))" } ?? ""))
        field("sample format", format.rawSampleFormat?.rawValue ?? "compressed")
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
