// yt-gst — `yt-gst info`: what a WAV file holds, from its header, as text or JSON.
import AppSrcFeeder

struct InfoCommand {
    static let spec = CommandSpec(
        name: "info", abstract: "Show the format, length, chunks and warnings of WAV files.", operands: "FILE...",
        options: [OptionSpec(name: "json", help: "Print a JSON array with one object per file.")],
        discussion: """
            EXAMPLES:
              yt-gst info song.wav
              yt-gst info --json *.wav | jq '.[].duration'
            """)

    var files: [String]
    var json: Bool

    init(_ arguments: ParsedArguments) throws(UsageError) {
        guard !arguments.operands.isEmpty else { throw UsageError("no file given") }
        files = arguments.operands
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
        field("format", "\(hex(format.formatTag)) \(FormatTag.name(of: format.formatTag))"
              + (format.subFormatTag.map { " (sub-format \(hex($0)) \(FormatTag.name(of: $0)))" } ?? ""))
        field("sample format", format.rawSampleFormat ?? "compressed")
        field("rate", "\(format.sampleRate) Hz")
        field("channels", "\(format.channels)" + (format.channelMask.map { " (mask 0x\(String($0, radix: 16)))" } ?? ""))
        field("bits", format.validBits == format.bitsPerSample
              ? "\(format.bitsPerSample)" : "\(format.validBits) valid in \(format.bitsPerSample)")
        field("block align", "\(format.blockAlign)")
        field("frames", "\(wav.frameCount)")
        field("duration", Self.duration(wav.durationSeconds))
        field("data", "\(wav.dataByteCount) bytes at offset \(wav.dataOffset)")
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
            ("frames", "\(wav.frameCount)"),
            ("duration", "\(wav.durationSeconds)"),
            ("dataOffset", "\(wav.dataOffset)"),
            ("dataBytes", "\(wav.dataByteCount)"),
        ]
        let chunks = wav.chunks.map { chunk in
            JSON.object([("id", JSON.string(chunk.id)), ("offset", "\(chunk.offset)"), ("size", "\(chunk.size)")])
        }
        fields.append(("chunks", "[" + chunks.joined(separator: ",") + "]"))
        fields.append(("warnings", "[" + wav.warnings.map(JSON.string).joined(separator: ",") + "]"))
        return JSON.object(fields)
    }

    private func hex(_ tag: UInt16) -> String {
        let digits = String(tag, radix: 16, uppercase: true)
        return "0x" + String(repeating: "0", count: max(0, 4 - digits.count)) + digits
    }

    /// "m:ss.mmm".
    static func duration(_ seconds: Double) -> String {
        let millis = Int((seconds * 1000).rounded())
        let (minutes, secs, ms) = (millis / 60_000, millis / 1000 % 60, millis % 1000)
        let msText = String(ms)
        return "\(minutes):\(secs < 10 ? "0" : "")\(secs).\(String(repeating: "0", count: 3 - msText.count))\(msText)"
    }
}

/// Just enough JSON writing for `info --json` (no Foundation: it costs start-up time).
enum JSON {
    static func string(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case let c where c.value < 0x20:
                let digits = String(c.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - digits.count) + digits
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }

    static func object(_ fields: [(String, String)]) -> String {
        "{" + fields.map { "\(string($0.0)): \($0.1)" }.joined(separator: ", ") + "}"
    }
}
