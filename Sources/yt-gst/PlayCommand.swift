// yt-gst — `yt-gst play`: plays files one after another through the default output, a sink or a whole pipeline.
import AppSrcFeeder
import Glibc
import GstPlayer

struct PlayCommand {
    /// appsrc → conversion → the system's audio output.
    static let defaultPipeline = "appsrc name=src ! audioconvert ! audioresample ! autoaudiosink"
    /// What `--sink` replaces: everything after the conversion.
    static let sinkPrefix = "appsrc name=src ! audioconvert ! audioresample ! "

    static let spec = CommandSpec(
        name: "play", abstract: "Play WAV files, one after another.", operands: "FILE...",
        options: [
            OptionSpec(name: "sink", valueName: "FRAGMENT", help: "Play into this launch fragment instead of the default output."),
            OptionSpec(name: "pipeline", valueName: "LAUNCH", help: "Use this whole pipeline; it must contain \"appsrc name=src\"."),
            OptionSpec(name: "chunk-ms", valueName: "N", help: "Milliseconds of audio per pushed buffer (default 200)."),
            OptionSpec(name: "buffers", valueName: "N", help: "Buffers queued in the appsrc (default 3)."),
            OptionSpec(name: "quiet", short: "q", help: "No status line and no warnings; errors only."),
            OptionSpec(name: "verbose", short: "v", help: "Show GStreamer's debug details with errors and warnings."),
        ],
        discussion: """
            The default pipeline is:
              \(defaultPipeline)
            Files are read from their header and pushed in chunks of whole frames from appsrc's need-data callback.
            Playback ends after the sink has played the very last sample. Ctrl-C stops cleanly (exit 130).

            EXAMPLES:
              yt-gst play song.wav
              yt-gst play *.wav --chunk-ms 100 --buffers 4
              yt-gst play song.wav --sink 'wavenc ! filesink location=copy.wav'
              yt-gst play song.wav --sink 'pulsesink device=alsa_output.usb'
              yt-gst play song.wav --pipeline 'appsrc name=src ! audioconvert ! lamemp3enc ! filesink location=x.mp3'
            """)

    var files: [String]
    var launch: String
    /// True when playing to the system's output (no --sink, no --pipeline): then an output must exist.
    var usesDefaultOutput: Bool
    var chunkMilliseconds: Int
    var buffers: Int
    var quiet: Bool
    var verbose: Bool

    init(_ arguments: ParsedArguments) throws(UsageError) {
        guard !arguments.operands.isEmpty else { throw UsageError("no file given") }
        let sink = arguments.value("sink")
        let pipeline = arguments.value("pipeline")
        if sink != nil && pipeline != nil { throw UsageError("use --sink or --pipeline, not both") }
        if let sink, sink.allSatisfy(\.isWhitespace) { throw UsageError("--sink needs a launch fragment") }
        files = arguments.operands
        launch = pipeline ?? sink.map { PlayCommand.sinkPrefix + $0 } ?? PlayCommand.defaultPipeline
        usesDefaultOutput = sink == nil && pipeline == nil
        chunkMilliseconds = try arguments.integer("chunk-ms", in: 1...10_000) ?? WAVFeeder.defaultChunkMilliseconds
        buffers = try arguments.integer("buffers", in: 1...64) ?? WAVFeeder.defaultBuffers
        quiet = arguments.flags.contains("quiet")
        verbose = arguments.flags.contains("verbose")
    }

    /// How one file's playback ended.
    private enum Outcome {
        case finished, failed, interrupted(Int32)
    }

    func run() throws(UsageError) -> ExitCode {
        Gst.initialize()
        Interrupts.install()
        if let problem = pipelineProblem() {
            Terminal.error("yt-gst: \(problem.message)")
            return problem.code
        }
        if usesDefaultOutput && Gst.audioOutputs().isEmpty {
            Terminal.error(
                "yt-gst: no audio output available (no PulseAudio server or sound card found); "
                    + "choose another with --sink, e.g. --sink 'fakesink sync=true'")
            return .failure
        }
        let player = Player(launch: launch)
        var status = StatusLine(enabled: Terminal.stdoutIsTerminal && !quiet)
        var anyFailed = false
        for (index, file) in files.enumerated() {
            if let signal = Interrupts.pending { return exitCode(for: signal) }
            let feeder: WAVFeeder
            do {
                feeder = try WAVFeeder(path: file, chunkMilliseconds: chunkMilliseconds, buffers: buffers)
            } catch {
                Terminal.error("yt-gst: \(file): \(error)")
                anyFailed = true
                continue
            }
            if !quiet {
                for warning in feeder.file.warnings { Terminal.error("yt-gst: \(file): warning: \(warning)") }
            }
            let counter = files.count > 1 ? " (\(index + 1)/\(files.count))" : ""
            switch play(feeder, with: player, label: "\(file)\(counter)", status: &status) {
            case .finished: break
            case .failed: anyFailed = true
            case .interrupted(let signal): return exitCode(for: signal)
            }
        }
        return anyFailed ? .failure : .success
    }

    /// Parses the pipeline once before any file, so a bad string is one error, not one per file.
    private func pipelineProblem() -> (message: String, code: ExitCode)? {
        do {
            _ = try Pipeline(launch: launch).appSource(named: "src")
            return nil
        } catch {
            switch error.kind {
            case .notFound: return ("the pipeline must contain an element \"appsrc name=src\": \(launch)", .usage)
            case .missingElement: return (MissingPlugin.describe(error), .failure)
            default: return ("bad pipeline: \(error.message): \(launch)", .usage)
            }
        }
    }

    /// Plays one file to its end (or an error, or a signal), drawing the status line as it goes.
    private func play(_ feeder: WAVFeeder, with player: Player, label: String, status: inout StatusLine) -> Outcome {
        defer {
            status.clear()
            player.stop()
        }
        do {
            try player.play(feeder)
        } catch {
            report(error, file: feeder.displayName)
            return .failed
        }
        let total = ClockTime(frames: feeder.file.frameCount, rate: feeder.file.format.sampleRate)
        while true {
            if let signal = Interrupts.pending { return .interrupted(signal) }
            switch player.nextEvent(timeout: .milliseconds(100)) {
            case .endOfStream?:
                return .finished
            case .error(let error)?:
                status.clear()
                report(error, file: feeder.displayName)
                return .failed
            case .warning(let warning)?:
                if !quiet {
                    status.clear()
                    Terminal.error("yt-gst: \(feeder.displayName): warning: \(verbose ? warning.verboseDescription : warning.description)")
                }
            default:
                break
            }
            let position = player.position.map { min($0, total) } ?? .zero
            let symbol = player.state == .paused ? "||" : ">"
            status.draw("\(symbol) \(position) / \(total)  \(label)")
        }
    }

    private func report(_ error: GstError, file: String) {
        Terminal.error("yt-gst: \(file): \(verbose ? error.verboseDescription : error.description)")
    }

    private func exitCode(for signal: Int32) -> ExitCode { signal == SIGTERM ? .terminated : .interrupted }
}

