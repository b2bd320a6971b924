// yt-gst — the options `play`, `stream` and `receive` share, defined once; each command words only what differs.

extension OptionSpec {
    /// `-q, --quiet`; `silenced` says what the command then leaves out ("status line and no warnings").
    static func quiet(silencing silenced: String) -> OptionSpec {
        OptionSpec(name: "quiet", short: "q", help: "No \(silenced); errors only.")
    }

    /// `-v, --verbose`.
    static let verbose = OptionSpec(
        name: "verbose", short: "v", help: "Show GStreamer's debug details with errors and warnings.")

    /// `--sink`: what plays the audio; `templates`: whether a template name is accepted too (`play`).
    static func sink(templates: Bool) -> OptionSpec {
        OptionSpec(
            name: "sink", valueName: templates ? "NAME|FRAGMENT" : "FRAGMENT",
            help: "Play into this \(templates ? "template or " : "")launch fragment instead of the default output.")
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
    /// The values of `--sink` and `--pipeline`, of which at most one may be given.
    func sinkOrPipeline() throws(UsageError) -> (sink: String?, pipeline: String?) {
        let sink = value("sink")
        let pipeline = value("pipeline")
        if sink != nil && pipeline != nil { throw UsageError("use --sink or --pipeline, not both") }
        return (sink, pipeline)
    }
}
