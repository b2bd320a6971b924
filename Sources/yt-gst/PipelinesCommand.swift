// yt-gst — `yt-gst pipelines`: the named templates, where each came from, and what one contains.
import AppSrcFeeder

struct PipelinesCommand {
    static let spec = CommandSpec(
        name: "pipelines", abstract: "List the named pipeline templates, or show one.", operands: "[show NAME]",
        options: [OptionSpec(name: "names", help: "Print only the names, one per line (for shell completion).")],
        discussion: """
            Templates are files NAME.pipeline: a first line "# description", then a launch string with
            "appsrc name=src" and placeholders ${key}, ${key:-default} or ${key:-} (optional) in property values.
            They are searched in $YT_GST_PIPELINES (folders separated by ":"), $XDG_CONFIG_HOME/yt-gst/pipelines
            (~/.config/yt-gst/pipelines), the installed share/yt-gst/pipelines, then those built into yt-gst; the first
            of a name wins. Use one with `yt-gst play FILE --pipeline NAME --set key=value`.

            EXAMPLES:
              yt-gst pipelines
              yt-gst pipelines show rtp-l16
            """)

    var operands: [String]
    var namesOnly: Bool

    init(_ parsed: ParsedArguments) throws(UsageError) {
        operands = parsed.operands
        namesOnly = parsed.flags.contains("names")
        guard operands.isEmpty || (operands.count == 2 && operands[0] == "show") else {
            throw UsageError("expected no arguments or \"show NAME\"")
        }
    }

    func run() -> ExitCode {
        let library = TemplateLibrary.standard
        if operands.count == 2 {
            guard let template = library.template(named: operands[1]) else {
                Terminal.error("yt-gst: no pipeline template named \"\(operands[1])\" (yt-gst pipelines lists them)")
                return .failure
            }
            var text = "\(template.name): \(template.description)\nfrom: \(template.origin)\n\n\(template.text)\n"
            let placeholders = template.placeholders
            if !placeholders.isEmpty {
                text += "\nplaceholders:\n"
                for (key, fallback) in placeholders {
                    let note = fallback.map { $0.isEmpty ? "optional" : "default \($0)" } ?? "required"
                    text += "  \(key.padding(to: 12))\(note)\n"
                }
            }
            Terminal.write(text)
            return .success
        }
        let templates = library.all()
        if namesOnly {
            Terminal.write(templates.map { $0.name + "\n" }.joined())
            return .success
        }
        let width = (templates.map(\.name.count).max() ?? 0) + 2
        var text = ""
        for template in templates {
            text += template.name.padding(to: width) + template.description + "\n"
            text += String(repeating: " ", count: width) + "(\(template.origin))\n"
        }
        Terminal.write(text)
        return .success
    }
}
