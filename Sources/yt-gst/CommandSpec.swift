// yt-gst — a small hand-written argument parser: options, flags and operands, specified once for parsing and help.

/// A command's name, synopsis, options and help text.
struct CommandSpec: Sendable {
    var name: String
    var abstract: String
    /// Operands in the usage line, e.g. "FILE...".
    var operands: String
    var options: [OptionSpec]
    /// Paragraphs after the options: details and examples.
    var discussion: String = ""

    static let helpOption = OptionSpec(name: "help", short: "h", help: "Show this help and exit.")

    /// The help text printed by `--help`, also the source of the man page.
    var help: String {
        var text = "USAGE: yt-gst \(name) [OPTIONS] \(operands)\n\n\(abstract)\n\nOPTIONS:\n"
        for option in options + [CommandSpec.helpOption] {
            var left = option.short.map { "-\($0), " } ?? "    "
            left += "--\(option.name)"
            if let value = option.valueName { left += option.valueIsOptional ? " [\(value)]" : " \(value)" }
            let pad =
                left.count < 26
                ? String(repeating: " ", count: 26 - left.count) : "\n" + String(repeating: " ", count: 28)
            text += "  \(left)\(pad)\(option.help)\n"
        }
        if !discussion.isEmpty { text += "\n\(discussion)\n" }
        return text
    }
}

extension CommandSpec {
    /// Parses `arguments` (after the command name): `--name value`, `--name=value`, `-x`, `--` ends options.
    func parse(_ arguments: some Sequence<String>) throws(UsageError) -> ParsedArguments {
        var result = ParsedArguments()
        var remaining = Array(arguments)[...]
        var onlyOperands = false
        while let argument = remaining.popFirst() {
            if onlyOperands || argument == "-" || !argument.hasPrefix("-") {
                result.operands.append(argument)
                continue
            }
            if argument == "--" {
                onlyOperands = true
                continue
            }
            var name: Substring
            var inlineValue: String? = nil
            if argument.hasPrefix("--") {
                name = argument.dropFirst(2)
                if let equals = name.firstIndex(of: "=") {
                    inlineValue = String(name[name.index(after: equals)...])
                    name = name[..<equals]
                }
            } else {
                name = argument.dropFirst()
            }
            let all = options + [CommandSpec.helpOption]
            guard let option = all.first(where: { $0.name == name || (name.count == 1 && $0.short == name.first) })
            else {
                throw UsageError("unknown option \(argument)")
            }
            if option.valueIsOptional {
                result.flags.insert(option.name)
                if let value = inlineValue ?? remaining.first.flatMap({ option.takesAsValue($0) ? $0 : nil }) {
                    if inlineValue == nil { remaining.removeFirst() }
                    result.values[option.name, default: []].append(value)
                }
            } else if option.valueName == nil {
                guard inlineValue == nil else { throw UsageError("--\(option.name) takes no value") }
                result.flags.insert(option.name)
            } else {
                guard let value = inlineValue ?? remaining.popFirst() else {
                    throw UsageError("--\(option.name) needs a value (\(option.valueName!))")
                }
                result.values[option.name, default: []].append(value)
            }
        }
        return result
    }
}
