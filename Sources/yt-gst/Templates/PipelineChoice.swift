// yt-gst — from --pipeline / --sink / --set to one launch string and the properties to set after parsing.
import AppSrcFeeder
import GstPlayer

enum PipelineChoice {
    /// What --sink composes with: the conversion the default pipeline does before its sink.
    static let sinkPrefix = "appsrc name=src ! audioconvert ! audioresample ! "

    /// Resolves the options of `play`.
    ///
    /// `--pipeline NAME` or a launch string; `--sink NAME` (a template: used whole when one of its elements is an
    /// appsrc, else as a sink fragment) or a fragment; neither: the `default` template. `--set key=value` fills placeholders.
    static func resolve(
        pipeline: String?, sink: String?, settings: [String], library: TemplateLibrary
    )
        throws(UsageError) -> ResolvedPipeline
    {
        let values = try Self.values(from: settings)
        let template: PipelineTemplate
        if let pipeline {
            if let named = library.template(named: pipeline) {
                template = named
            } else if looksLikeName(pipeline) {
                throw UsageError(
                    "no pipeline template named \"\(pipeline)\" (yt-gst pipelines lists them)", showsHelp: false)
            } else {
                template = PipelineTemplate(name: "", contents: pipeline, origin: "--pipeline")
            }
        } else if let sink {
            if let named = library.template(named: sink) {
                let hasSource = Launch.elements(in: named.text).contains { $0.factory == "appsrc" }
                template =
                    hasSource
                    ? named
                    : PipelineTemplate(name: named.name, contents: sinkPrefix + named.text, origin: named.origin)
            } else {
                template = PipelineTemplate(name: "", contents: sinkPrefix + sink, origin: "--sink")
            }
        } else {
            guard let named = library.template(named: "default") else {
                throw UsageError("no \"default\" pipeline template found", showsHelp: false)
            }
            template = named
        }
        return try instantiate(template, values: values)
    }

    /// `--set KEY=VALUE` values by key.
    static func values(from settings: [String]) throws(UsageError) -> [String: String] {
        var values: [String: String] = [:]
        for setting in settings {
            guard let equals = setting.firstIndex(of: "="), equals != setting.startIndex else {
                throw UsageError("--set needs KEY=VALUE, not \"\(setting)\"", showsHelp: false)
            }
            values[String(setting[..<equals])] = String(setting[setting.index(after: equals)...])
        }
        return values
    }

    /// Fills a template's placeholders from `values`; a value that does not fit is a one-line usage error.
    static func instantiate(
        _ template: PipelineTemplate, values: [String: String]
    ) throws(UsageError) -> ResolvedPipeline {
        do { return try template.instantiate(values: values) } catch {
            let label = template.name.isEmpty ? template.origin : "template \"\(template.name)\""
            switch error {
            case .unknownKey(let key, let known):
                let offered = known.map { "${\($0)}" }.joined(separator: ", ")
                throw UsageError(
                    "--set \(key): \(label) has no ${\(key)}" + (offered.isEmpty ? "" : " (it has \(offered))"),
                    showsHelp: false)
            case .missingValue(let key):
                throw UsageError("\(label) needs a value for ${\(key)}: add --set \(key)=VALUE", showsHelp: false)
            }
        }
    }

    /// One word without spaces, `!` or `=`: a template name rather than launch text.
    private static func looksLikeName(_ text: String) -> Bool {
        !text.isEmpty && !text.contains(where: { $0 == " " || $0 == "!" || $0 == "=" || $0 == "\t" })
    }
}
