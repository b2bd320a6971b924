// yt-gst — `yt-gst record`: options, the source, then a recording session (Recording) with keys, signals and status.
import AppSrcFeeder
import Control
import Glibc
import GstPlayer
import Recording
import WAV

struct RecordCommand {
    static let spec = CommandSpec(
        name: "record", abstract: "Record audio into a WAV file that stays valid even if yt-gst is killed.",
        operands: "OUT.wav|PATTERN|-",
        options: [
            OptionSpec(
                name: "source", valueName: "NAME|FRAGMENT",
                help: "Record from this source template (yt-gst pipelines) or launch fragment (default: mic)."),
            OptionSpec(
                name: "pipeline", valueName: "LAUNCH",
                help: "Use this whole launch string; it must end in \"appsink name=sink\"."),
            OptionSpec(
                name: "set", valueName: "KEY=VALUE",
                help: "Fill a source template placeholder ${KEY} (repeatable); set as a property, never pasted."),
            OptionSpec(name: "rate", valueName: "HZ", help: "Sample rate (default: the source's)."),
            OptionSpec(name: "channels", valueName: "N", help: "Channels (default: the source's)."),
            OptionSpec(
                name: "format", valueName: "FORMAT",
                help: "Sample format: s16 (default), s24, s32, f32, u8, alaw or mulaw."),
            OptionSpec(name: "duration", valueName: "TIME", help: "Stop after TIME of audio (83.5, 1:23, 1:02:03)."),
            OptionSpec(name: "max-size", valueName: "BYTES", help: "Stop before a file grows beyond BYTES."),
            OptionSpec(name: "force", short: "f", help: "Replace OUT if it exists."),
            OptionSpec(
                name: "sync-interval", valueName: "SECONDS",
                help: "Longest time between two syncs to disk (default 1): what a power cut can take."),
            OptionSpec(name: "title", valueName: "TEXT", help: "Title (LIST/INFO INAM)."),
            OptionSpec(name: "artist", valueName: "TEXT", help: "Artist (LIST/INFO IART)."),
            OptionSpec(name: "comment", valueName: "TEXT", help: "Comment (LIST/INFO ICMT)."),
            OptionSpec(
                name: "bext", help: "Write a Broadcast Wave bext chunk (origination date and time, time reference)."),
            OptionSpec(
                name: "vox", valueName: "DB", help: "Voice activation: write only while the peak is above DB dBFS."),
            OptionSpec(name: "pre-roll", valueName: "SECONDS", help: "With --vox: audio kept before the start (0.2)."),
            OptionSpec(name: "hang", valueName: "SECONDS", help: "With --vox: audio kept after the sound stops (0.5)."),
            OptionSpec(
                name: "split", valueName: "TIME|vox",
                help: "Start a new file every TIME, or per utterance with --vox; OUT is then a name pattern."),
            .inputIPCServer,
        ] + TerminalOptions.specs(quietSilencing: "status line"),
        discussion: """
            The WAV header is rewritten with the true sizes after every write and the file synced to disk at least
            once a second, so a crash, kill -9, power cut or full disk leaves a valid WAV holding everything up to
            about a second before it. Past 4 GiB the file becomes RF64 by itself. An existing OUT is kept unless
            --force is given. OUT "-" writes the WAV to standard output with a streaming header.

            The default source is the "mic" template (autoaudiosrc: PulseAudio or ALSA). Source templates: mic,
            pulse-in (device=), monitor (a sink's monitor: monitor=NAME.monitor), alsa-in (device=), tone (freq=, volume=), uri-in
            (uri=, e.g. srt://host:7001 or http://...). The default format is the source's rate and channels at 16
            bits; the original voice memos were --rate 8000 --channels 1.

            With --split the name is a pattern: strftime fields (memo-%Y%m%d-%H%M%S.wav) and/or a counter
            (take-%03d.wav); split files joined end to end are the continuous recording, sample for sample.

            KEYS (on a terminal):
              space          pause / resume (nothing is written while paused)
              m              drop a marker (a cue point labelled "marker 1", ...; yt-gst info lists them)
              q or Esc       stop and finish the file (Ctrl-C too: exit 130)

            EXAMPLES:
              yt-gst record memo.wav --rate 8000 --channels 1
              yt-gst record take.wav --source monitor --set monitor=spk.monitor --duration 10
              yt-gst record 'memo-%Y%m%d-%H%M%S.wav' --vox -40 --split vox
              yt-gst record - | yt-gst play -
            """)

    /// The shipped source templates (pipelines/): fragments that end where record's conversion and appsink begin.
    static let sourceTemplates: Set<String> = ["mic", "pulse-in", "monitor", "alsa-in", "tone", "uri-in"]

    var output: String
    var source: String?
    var pipeline: String?
    var settings: [String]
    var rate: Int?
    var channels: Int?
    var format: SampleFormat
    var duration: Double?
    var maxSize: UInt64?
    var force: Bool
    var syncInterval: Double
    var info: [WAVMetadata.InfoEntry]
    var bext: Bool
    var vox: Double?
    var preRoll: Double
    var hang: Double
    /// nil: one file; `.every(seconds)` or `.utterance`.
    var split: RecordSession.Configuration.Split?
    var terminal: TerminalOptions
    var ipcServer: String?

    init(_ parsed: ParsedArguments) throws(UsageError) {
        guard parsed.operands.count == 1, let output = parsed.operands.first, !output.isEmpty else {
            throw UsageError(parsed.operands.isEmpty ? "no output file given" : "give one output file")
        }
        self.output = output
        source = parsed.value("source")
        pipeline = parsed.value("pipeline")
        if source != nil && pipeline != nil { throw UsageError("use --source or --pipeline, not both") }
        settings = parsed.values["set"] ?? []
        rate = try parsed.integer("rate", in: 1_000...768_000)
        channels = try parsed.integer("channels", in: 1...WAVFeeder.maxChannels)
        let formatText = parsed.value("format") ?? "s16"
        guard let format = SampleFormat(rawValue: formatText) else {
            throw UsageError("--format must be s16, s24, s32, f32, u8, alaw or mulaw, not \"\(formatText)\"")
        }
        self.format = format
        duration = try parsed.time("duration")
        if duration == 0 { throw UsageError("--duration must be more than 0") }
        maxSize = try parsed.integer("max-size", in: 4_096...Int.max).map(UInt64.init)
        force = parsed.flags.contains("force")
        syncInterval = try parsed.number("sync-interval", in: 0.01...60) ?? 1
        info = [("INAM", "title"), ("IART", "artist"), ("ICMT", "comment")].compactMap { id, option in
            parsed.value(option).map { WAVMetadata.InfoEntry(id: id, value: $0) }
        }
        bext = parsed.flags.contains("bext")
        vox = try parsed.number("vox", in: -120...0)
        preRoll = try parsed.number("pre-roll", in: 0...10) ?? 0.2
        hang = try parsed.number("hang", in: 0...60) ?? 0.5
        if vox == nil && (parsed.value("pre-roll") != nil || parsed.value("hang") != nil) {
            throw UsageError("--pre-roll and --hang go with --vox")
        }
        switch parsed.value("split") {
        case nil: split = nil
        case "vox":
            guard vox != nil else { throw UsageError("--split vox needs --vox DB") }
            split = .utterance
        case let text?:
            guard let seconds = TimeText.seconds(text), seconds >= 0.1 else {
                throw UsageError("--split must be a time of at least 0.1 s (10, 1:00) or \"vox\", not \"\(text)\"")
            }
            split = .every(seconds)
        }
        if output == "-" && split != nil { throw UsageError("--split needs file names, not -") }
        terminal = try TerminalOptions(parsed)
        ipcServer = parsed.value("input-ipc-server")
    }

    /// What the appsink accepts after a source fragment, and the launch string around a fragment: the session's
    /// (`RecordSession.Configuration`), seen from the options, so they can be checked without a pipeline.
    var sinkCaps: String { configuration(source: .fragment("")).sinkCaps }
    func launch(source: String) -> String { configuration(source: .fragment(source)).launch }

    func run() throws(UsageError) -> ExitCode {
        Interrupts.install()
        let (source, properties) = try resolveSource()
        var configuration = configuration(source: source)
        configuration.properties = properties
        let toStandardOutput = output == "-"
        if toStandardOutput {
            guard !Terminal.stdoutIsTerminal else {
                Terminal.error("yt-gst: will not write audio to a terminal; redirect standard output")
                return .failure
            }
            signal(SIGPIPE, SIG_IGN)  // a reader that goes away is EPIPE: the recording ends
        }
        let onTerminal = toStandardOutput ? false : Terminal.stdoutIsTerminal
        let keyboard = terminal.interactive && (onTerminal || toStandardOutput) ? KeyboardInput() : nil
        let renderer = RecordRenderer(terminal, onTerminal: onTerminal, toStandardOutput: toStandardOutput)
        let model = RecordModel()
        guard let ipc = IPCOption.open(ipcServer, { try RecordIPC(socket: $0, model: model) }) else { return .failure }
        configuration.statusInterval = IPCOption.statusInterval(
            renderer.showsStatus ? .milliseconds(100) : nil, serving: ipc)
        let session = RecordSession(configuration) { event in
            renderer.show(event)
            model.update(event)
            ipc?.handle(event)
        }
        let control = session.control
        model.control = control
        Interrupts.onSignal { control.stop(.interrupted($0)) }
        let keys = keyboard.map { keyboard in
            MainLoop.watch(keyboard.descriptor) {
                for key in keyboard.keys() { Self.press(key, control: control, renderer: renderer) }
            }
        }
        defer {
            ipc?.close()
            keys?.cancel()
            renderer.clear()
            keyboard?.restore()
        }
        do {
            let ending = try session.run()
            renderer.clear()
            return exitCode(for: ending)
        } catch {
            renderer.clear()
            Terminal.error("yt-gst: \(RecordRenderer.describe(error, verbose: terminal.verbose))")
            return RecordRenderer.exitCode(for: error)
        }
    }

    /// What a key does while recording.
    private static func press(_ key: Key, control: RecordSession.Control, renderer: RecordRenderer) {
        switch RecordKeys.action(for: key) {
        case .togglePause?: control.togglePause()
        case .marker?: control.addMarker()
        case .quit?: control.stop()
        case .showKeys?: renderer.showKeys()
        case nil: break
        }
    }

    /// 0, or 130/143 after a signal; a recording that got no audio at all (without --vox) failed.
    private func exitCode(for ending: RecordSession.Ending) -> ExitCode {
        if case .stopped(.interrupted(let signal)) = ending.reason { return Interrupts.exitCode(for: signal) }
        if !ending.receivedAudio && vox == nil {
            Terminal.error("yt-gst: the source ended before any audio came")
            return .failure
        }
        return .success
    }

    /// The source: a template's fragment (the session adds the conversion and the appsink) or the whole
    /// --pipeline, with the --set values as properties.
    private func resolveSource() throws(UsageError)
        -> (RecordSession.Configuration.Source, [PropertySetting])
    {
        let values = try PipelineChoice.values(from: settings)
        let resolved: ResolvedPipeline
        if let pipeline {
            resolved = try PipelineChoice.instantiate(
                PipelineTemplate(name: "", contents: pipeline, origin: "--pipeline"), values: values)
        } else {
            let name = source ?? "mic"
            let template =
                TemplateLibrary.standard.template(named: name)
                ?? PipelineTemplate(name: "", contents: name, origin: "--source")
            guard template.name.isEmpty || !template.text.contains("appsrc") else {
                throw UsageError(
                    "\"\(name)\" is a playback template; record from a source template (yt-gst pipelines)",
                    showsHelp: false)
            }
            resolved = try PipelineChoice.instantiate(template, values: values)
        }
        return (pipeline == nil ? .fragment(resolved.launch) : .pipeline(resolved.launch), resolved.properties)
    }

    /// The session's configuration from the options.
    private func configuration(source: RecordSession.Configuration.Source) -> RecordSession.Configuration {
        let destination: RecordSession.Configuration.Output =
            output == "-"
            ? .descriptor(STDOUT_FILENO)
            : split.map { .files(pattern: SplitName.pattern(for: output), split: $0) } ?? .file(output)
        var configuration = RecordSession.Configuration(output: destination, source: source)
        configuration.format = format
        configuration.rate = rate
        configuration.channels = channels
        configuration.duration = duration
        configuration.maxSize = maxSize
        configuration.replacesExisting = force
        configuration.syncInterval = .milliseconds(Int64(syncInterval * 1000))
        configuration.rf64Threshold = Self.rf64Threshold
        configuration.info = info
        configuration.broadcastChunk = bext
        configuration.software = "yt-gst \(Tool.version)"
        configuration.voiceActivation = vox.map { .init(threshold: $0, preRoll: preRoll, hang: hang) }
        return configuration
    }

    /// $YT_GST_RF64_THRESHOLD: the RIFF size past which files become RF64, lowered by the crash tests so a short
    /// recording crosses it (unset: 4 GiB, the real limit).
    static let rf64Threshold: UInt64? = getenv("YT_GST_RF64_THRESHOLD").flatMap { UInt64(String(cString: $0)) }
}
