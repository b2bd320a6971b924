// yt-gst — the tool's commands, top-level help and version.
import AppSrcFeeder
import Glibc
import GstPlayer
import Streaming

enum Tool {
    static let version = "0.1.0"

    /// A command: its spec (for parsing and help) and what it does with parsed arguments.
    struct Command: Sendable {
        var spec: CommandSpec
        var run: @Sendable (ParsedArguments) throws(UsageError) -> ExitCode
    }

    static let commands: [Command] = [
        Command(spec: PlayCommand.spec, run: { arguments throws(UsageError) in try PlayCommand(arguments).run() }),
        Command(spec: RecordCommand.spec, run: { arguments throws(UsageError) in try RecordCommand(arguments).run() }),
        Command(spec: InfoCommand.spec, run: { arguments throws(UsageError) in try InfoCommand(arguments).run() }),
        Command(spec: CtlCommand.spec, run: { arguments throws(UsageError) in try CtlCommand(arguments).run() }),
        Command(
            spec: PipelinesCommand.spec, run: { arguments throws(UsageError) in try PipelinesCommand(arguments).run() }),
        Command(
            spec: CompletionsCommand.spec,
            run: { arguments throws(UsageError) in try CompletionsCommand(arguments).run() }),
        Command(
            spec: StreamCommand.spec,
            run: { arguments throws(UsageError) in
                // A broadcast destination makes it a broadcast (BroadcastCommand); otherwise RTP or SRT.
                if (arguments.values["to"] ?? []).contains(where: BroadcastTarget.isBroadcast) {
                    return try BroadcastCommand(arguments).run()
                }
                return try StreamCommand(arguments).run()
            }),
        Command(
            spec: ReceiveCommand.spec,
            run: { arguments throws(UsageError) in
                // http(s):// (Icecast, a web server's HLS) has its own reconnecting session; the rest is RTP or SRT.
                if HTTPReceiveCommand.handles(arguments) { return try HTTPReceiveCommand(arguments).run() }
                return try ReceiveCommand(arguments).run()
            }),
    ]

    static var help: String {
        var text = """
            USAGE: yt-gst COMMAND [OPTIONS] ARGUMENTS

            Play WAV files through GStreamer, from a need-data appsrc feeder.

            COMMANDS:

            """
        for command in commands {
            text += "  " + command.spec.name.padding(to: 13) + command.spec.abstract + "\n"
        }
        text += """

            OPTIONS:
              -h, --help       Show this help (or `yt-gst COMMAND --help` for a command's).
                  --version    Show the version of yt-gst and of GStreamer.

            EXIT CODES:
              0 success, 1 runtime error, 64 usage error, 130 interrupted (Ctrl-C), 143 terminated (SIGTERM).

            EXAMPLES:
              yt-gst play song.wav
              yt-gst play a.wav b.wav --sink 'wavenc ! filesink location=out.wav'
              yt-gst info --json song.wav
              yt-gst record memo.wav --rate 8000 --channels 1
              yt-gst stream song.wav --to rtp://192.168.1.20:5004      (and on that machine: yt-gst receive rtp://@:5004)
            """
        return text
    }

    static func run(_ arguments: [String]) -> ExitCode {
        guard let first = arguments.first else {
            Terminal.error("Error: no command given\n\n" + help)
            return .usage
        }
        switch first {
        case "-h", "--help", "help":
            if first == "help", let name = arguments.dropFirst().first, let command = command(named: name) {
                Terminal.write(command.spec.help)
            } else {
                Terminal.write(help + "\n")
            }
            return .success
        case "--version", "-V":
            Terminal.write("yt-gst \(version) (\(Gst.version))\n")
            return .success
        default:
            break
        }
        guard let command = command(named: first) else {
            Terminal.error("Error: unknown command \"\(first)\"\n\n" + help)
            return .usage
        }
        do {
            let parsed = try command.spec.parse(arguments.dropFirst())
            if parsed.helpRequested {
                Terminal.write(command.spec.help)
                return .success
            }
            return try command.run(parsed)
        } catch {
            Terminal.error(
                error.showsHelp ? "Error: \(error.message)\n\n" + command.spec.help : "yt-gst: \(error.message)")
            return .usage
        }
    }

    static func command(named name: String) -> Command? { commands.first { $0.spec.name == name } }
}
