// yt-gst — `yt-gst info`: what a WAV file holds, from its header, as text or JSON.
import AppSrcFeeder
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
                let report = WAVReport(wav, path: file)
                if json { objects.append(report.json) } else { Terminal.write(report.text) }
            } catch {
                Terminal.error("yt-gst: \(file): \(error)")
                anyFailed = true
            }
        }
        if json { Terminal.write("[" + objects.joined(separator: ",\n") + "]\n") }
        return anyFailed ? .failure : .success
    }
}
