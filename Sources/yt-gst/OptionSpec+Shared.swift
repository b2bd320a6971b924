// yt-gst — the options several commands share, defined and parsed once; each command words only what differs.

extension OptionSpec {
    /// `-q, --quiet`; `silenced` says what the command then leaves out ("status line and no warnings").
    static func quiet(silencing silenced: String) -> OptionSpec {
        OptionSpec(name: "quiet", short: "q", help: "No \(silenced); errors only.")
    }

    /// `-v, --verbose`.
    static let verbose = OptionSpec(
        name: "verbose", short: "v", help: "Show GStreamer's debug details with errors and warnings.")

    /// `--no-realtime` (`play`, `receive`, `stream`): the audio threads keep normal scheduling (see RealtimeThreads).
    static let noRealtime = OptionSpec(
        name: "no-realtime",
        help: "Keep the audio threads at normal scheduling (by default they run realtime where the system allows "
            + "it: root, CAP_SYS_NICE or an rtprio limit).")

    /// `--sink`: what plays the audio; `templates`: whether a template name is accepted too (`play`).
    static func sink(templates: Bool) -> OptionSpec {
        OptionSpec(
            name: "sink", valueName: templates ? "NAME|FRAGMENT" : "FRAGMENT",
            help: "Play into this \(templates ? "template or " : "")launch fragment instead of the default output.")
    }

    /// `--shuffle` and `--loop [N]` (`play`; `stream` for a broadcast, which `scope` names: "Broadcast").
    static func listOrder(scope: String? = nil) -> [OptionSpec] {
        func help(_ text: String) -> String {
            scope.map { "\($0): \(text)" } ?? text.prefix(1).uppercased() + text.dropFirst()
        }
        return [
            OptionSpec(name: "shuffle", help: help("play the list in random order.")),
            OptionSpec(
                name: "loop", valueName: "N", optionalNumber: true,
                help: help("repeat the whole list (N times; forever without N).")),
        ]
    }

    /// `--pipeline`: the whole pipeline (`play`, from its appsrc) or everything after the decoder (`receive`).
    static func pipeline(templates: Bool) -> OptionSpec {
        templates
            ? OptionSpec(
                name: "pipeline", valueName: "NAME|LAUNCH",
                help: "Use this template or whole launch string; it must contain \"appsrc name=src\".")
            : OptionSpec(
                name: "pipeline", valueName: "LAUNCH", help: "Send the decoded audio into this launch string instead.")
    }
}

extension ParsedArguments {
    /// `--loop [N]`: nil without it (once), 0 for forever, else N.
    func loopCount() throws(UsageError) -> Int? {
        flags.contains("loop") ? (try integer("loop", in: 1...1_000_000) ?? 0) : nil
    }

    /// The passes over the list a `--loop` count makes: 1 without it, nil (forever) for 0.
    static func passes(loopCount: Int?) -> Int? { loopCount.map { $0 == 0 ? nil : $0 } ?? 1 }

    /// The values of `--sink` and `--pipeline`, of which at most one may be given.
    func sinkOrPipeline() throws(UsageError) -> (sink: String?, pipeline: String?) {
        let sink = value("sink")
        let pipeline = value("pipeline")
        if sink != nil && pipeline != nil { throw UsageError("use --sink or --pipeline, not both") }
        return (sink, pipeline)
    }

    /// What takes `receive`'s decoded audio: --pipeline, or --sink after a conversion; nil: the default output.
    func receiveOutput() throws(UsageError) -> String? {
        let (sink, pipeline) = try sinkOrPipeline()
        if let text = sink ?? pipeline, text.allSatisfy(\.isWhitespace) {
            throw UsageError("--sink and --pipeline need a launch string")
        }
        return pipeline ?? sink.map { "audioconvert ! audioresample ! " + $0 }
    }
}
