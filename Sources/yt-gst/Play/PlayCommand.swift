// yt-gst — `yt-gst play`: options, then a playback session over the expanded playlist.
import AppSrcFeeder
import Control
import GstPlayer
import WAV

struct PlayCommand {
    static let spec = CommandSpec(
        name: "play", abstract: "Play WAV files, directories and playlists.", operands: "FILE|DIR|PLAYLIST...",
        options: [
            .sink(templates: true),
            .pipeline(templates: true),
            OptionSpec(
                name: "set", valueName: "KEY=VALUE",
                help: "Fill a template placeholder ${KEY} (repeatable); set as a property, never pasted."),
            OptionSpec(name: "start", valueName: "TIME", help: "Start each file at TIME (83.5, 1:23, 1:02:03)."),
            OptionSpec(name: "end", valueName: "TIME", help: "End each file at TIME."),
            OptionSpec(name: "volume", valueName: "X", help: "Volume, 0.0 to 1.5 (1.0 = unchanged)."),
            OptionSpec(name: "mute", help: "Start muted."),
            OptionSpec(name: "rate", valueName: "X", help: "Playback rate, 0.25 to 4, pitch kept (scaletempo)."),
        ] + OptionSpec.listOrder() + [
            OptionSpec(name: "loop-file", help: "Repeat each file until skipped with n (or quit)."),
            OptionSpec(
                name: "chunk-ms", valueName: "N",
                help: "Milliseconds of audio per pushed buffer (default 200; 1000 when no sink plays in real time)."),
            OptionSpec(name: "buffers", valueName: "N", help: "Buffers queued in the appsrc (default 3)."),
            .noRealtime,
            .inputIPCServer,
            .noMPRIS,
        ] + TerminalOptions.specs(quietSilencing: "status line, tags or warnings"),
        discussion: """
            Arguments may be WAV files, directories (searched recursively for .wav/.wave/.bwf/.rf64/.w64, in natural
            order) and m3u, m3u8 or pls playlists (relative paths are resolved against the playlist). A file that fails
            is reported and the rest play; the exit code is then 1.

            "-" reads a WAV from standard input, and a FIFO or a character device is read the same way: forward
            only, once, as it arrives (a streaming header's unknown length means "until the end"). Seeking keys say
            they are unavailable there, and --rate, --loop and --loop-file are refused; --start reads up to the start
            and drops it, --end stops there. Keys then come from the terminal (/dev/tty).

            The default pipeline is the "default" template:
              appsrc name=src ! audioconvert ! audioresample ! autoaudiosink
            Templates are listed by `yt-gst pipelines`. Volume, rate and level-meter elements are added after the appsrc
            only when the keyboard, --volume, --mute, --rate or the status line need them, so that otherwise every
            sample reaches the sink exactly as stored.

            \(Keys.help)

            EXAMPLES:
              yt-gst play song.wav
              yt-gst play ~/Music/album/ --shuffle --loop
              yt-gst play party.m3u --status json
              yt-gst play song.wav --start 1:00 --end 1:30 --rate 1.25
              yt-gst play song.wav --sink 'wavenc ! filesink location=copy.wav'
              yt-gst play song.wav --pipeline wav-file --set location='my song!.wav'
              yt-gst play song.wav --sink pulse --set device=alsa_output.usb-headset
              arecord -f cd | yt-gst play -
              yt-gst play song.wav --input-ipc-server yt.sock   (then: yt-gst ctl yt.sock cycle pause)
            """)

    var arguments: [String]
    var pipeline: String?
    var sink: String?
    var settings: [String]
    /// nil: the feeder's default (0.2 s, or 1 s when no sink plays in real time).
    var chunkMilliseconds: Int?
    var buffers: Int
    var start: Double?
    var end: Double?
    var volume: Double?
    var muted: Bool
    var rate: Double
    var shuffle: Bool
    /// nil: play once; 0: forever; N: N times.
    var loopCount: Int?
    var loopFile: Bool
    var terminal: TerminalOptions
    /// The socket of `--input-ipc-server`, if given.
    var ipcServer: String?
    /// Publish MPRIS when a session bus exists (not `--no-mpris`).
    var mpris: Bool
    /// Whether the audio threads may run realtime (not --no-realtime).
    var realtime: Bool

    init(_ parsed: ParsedArguments) throws(UsageError) {
        guard !parsed.operands.isEmpty else { throw UsageError("no file given") }
        arguments = parsed.operands
        try StandardInput.check(arguments, command: "play")
        (sink, pipeline) = try parsed.sinkOrPipeline()
        if let sink, sink.allSatisfy(\.isWhitespace) {
            throw UsageError("--sink needs a template name or launch fragment")
        }
        settings = parsed.values["set"] ?? []
        chunkMilliseconds = try parsed.integer("chunk-ms", in: 1...10_000)
        buffers = try parsed.integer("buffers", in: 1...64) ?? WAVFeeder.defaultBuffers
        start = try parsed.time("start")
        end = try parsed.time("end")
        if let start, let end, end <= start { throw UsageError("--end must come after --start") }
        volume = try parsed.number("volume", in: PlaybackSession.volumeRange)
        muted = parsed.flags.contains("mute")
        rate = try parsed.number("rate", in: PlaybackSession.rateRange) ?? 1
        shuffle = parsed.flags.contains("shuffle")
        loopCount = try parsed.loopCount()
        loopFile = parsed.flags.contains("loop-file")
        terminal = try TerminalOptions(parsed)
        ipcServer = parsed.value("input-ipc-server")
        mpris = !parsed.flags.contains("no-mpris")
        realtime = !parsed.flags.contains("no-realtime")
    }

    func run() throws(UsageError) -> ExitCode {
        Interrupts.install()
        let resolved = try PipelineChoice.resolve(
            pipeline: pipeline, sink: sink, settings: settings, library: .standard)
        guard let files = Playlist.files(of: arguments, nothingTo: "play", quiet: terminal.quiet) else {
            return .failure
        }
        try checkPipes(in: files)
        let keyboard =
            terminal.interactive && Terminal.stdoutIsTerminal ? KeyboardInput(stdinIsAudio: files.contains("-")) : nil
        let renderer = PlaybackRenderer(terminal)
        var configuration = configuration(
            files: files, pipeline: resolved, keys: keyboard != nil, showsStatus: renderer.showsStatus)
        let model = PlaybackModel(configuration: configuration)
        guard let ipc = IPCOption.open(ipcServer, { try PlaybackIPC(socket: $0, model: model) }) else {
            return .failure
        }
        let mpris = openMPRIS(for: model, configuration: &configuration)
        let session = PlaybackSession(configuration) { event in
            renderer.render(event)
            model.update(event)
            ipc?.handle(event)
            mpris?.handle(event)
        }
        let control = session.control
        model.control = control
        let keys = keyboard.map { KeyControl($0, control: control, renderer: renderer, start: start) }
        Interrupts.onSignal { control.stop(.interrupted(signal: $0)) }
        // The one place the terminal is put back, whichever way playback ends.
        defer {
            ipc?.close()
            mpris?.close()
            keys?.stop()
            renderer.finish()
            keyboard?.restore()
        }
        do {
            return Self.exitCode(for: try session.run())
        } catch {
            Terminal.error("yt-gst: \(renderer.describe(error))")
            if case .launch(let launch, let error) = error { return Self.problem(error, launch: launch).code }
            return .failure
        }
    }

    /// What the session plays and how, from the options: the pipeline gets a volume control and scaletempo when the
    /// keys may need them, a level meter when the status shows it.
    private func configuration(
        files: [String], pipeline: ResolvedPipeline, keys: Bool, showsStatus: Bool
    ) -> PlaybackSession.Configuration {
        var configuration = PlaybackSession.Configuration(files: files, launch: pipeline.launch)
        configuration.properties = pipeline.properties
        // The IPC socket may set the volume and the speed, as the keys may (and MPRIS, see openMPRIS).
        let steered = keys || ipcServer != nil
        configuration.processing = Processing(
            volume: steered || volume != nil || muted, tempo: steered || rate != 1, level: showsStatus)
        configuration.shuffle = shuffle
        configuration.passes = ParsedArguments.passes(loopCount: loopCount)
        configuration.repeatEachFile = loopFile
        configuration.start = start
        configuration.end = end
        configuration.volume = volume
        configuration.muted = muted
        configuration.rate = rate
        configuration.chunkMilliseconds = chunkMilliseconds
        configuration.buffers = buffers
        configuration.realtimeThreads = realtime
        // The IPC socket asks for more while a client observes time-pos (see PlaybackIPC.requestHandled).
        configuration.statusInterval = showsStatus ? .milliseconds(100) : nil
        return configuration
    }

    /// 0 when everything played (or the listener quit), 1 when a file failed, the signal's code after one.
    static func exitCode(for ending: PlaybackSession.Ending) -> ExitCode {
        switch ending {
        case .finished(let filesFailed), .stopped(.requested, let filesFailed): filesFailed ? .failure : .success
        case .stopped(.interrupted(let signal), _): Interrupts.exitCode(for: signal)
        case .failed: .failure
        }
    }

    /// A pipe (stdin, a FIFO, a device) plays once and forward only: the options that replay a file or seek in it
    /// cannot apply. --start and --end can: the feeder reads up to the start and drops it, and stops at the end.
    private func checkPipes(in files: [String]) throws(UsageError) {
        guard let pipe = files.first(where: DescriptorStream.isStream) else { return }
        if loopCount != nil || loopFile {
            throw UsageError("--loop and --loop-file replay files, but \(pipe) is a pipe, which plays once")
        }
        if rate != 1 { throw UsageError("--rate needs seeking, which is unavailable on a pipe (\(pipe))") }
    }

    /// What to say, and the exit code, when the pipeline does not build.
    static func problem(_ error: GstError, launch: String) -> (message: String, code: ExitCode) {
        switch error.kind {
        case .missingAppElement:
            return ("the pipeline must contain an element \"appsrc name=src\": \(launch)", .usage)
        case .notFound, .invalidValue: return ("bad pipeline: \(error.message)", .usage)
        case .missingElement: return (MissingPlugin.describe(error), .failure)
        default: return ("bad pipeline: \(error.message): \(launch)", .usage)
        }
    }
}
