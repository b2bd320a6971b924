// yt-gst — a small hand-written argument parser: options, flags and operands, specified once for parsing and help.

/// A usage mistake: printed with the command's help, exit code 64.
struct UsageError: Error {
    var message: String
    /// Whether the command's help follows the message (not for one-line problems such as a template value).
    var showsHelp: Bool
    init(_ message: String, showsHelp: Bool = true) {
        self.message = message
        self.showsHelp = showsHelp
    }
}

/// One option of a command.
struct OptionSpec: Sendable {
    /// Long name without dashes ("sink").
    var name: String
    /// Single-letter alias ("q"), if any.
    var short: Character? = nil
    /// Placeholder for its value ("FRAGMENT"); nil for a flag.
    var valueName: String? = nil
    /// A flag that may be followed by a number (`--loop`, `--loop 3`, `--loop=3`).
    var optionalNumber = false
    var help: String
}

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
            if let value = option.valueName { left += option.optionalNumber ? " [\(value)]" : " \(value)" }
            let pad =
                left.count < 26
                ? String(repeating: " ", count: 26 - left.count) : "\n" + String(repeating: " ", count: 28)
            text += "  \(left)\(pad)\(option.help)\n"
        }
        if !discussion.isEmpty { text += "\n\(discussion)\n" }
        return text
    }
}

/// The result of parsing: option values by long name (repeated options keep every value), flags, operands.
struct ParsedArguments {
    var values: [String: [String]] = [:]
    var flags: Set<String> = []
    var operands: [String] = []
    var helpRequested: Bool { flags.contains("help") }

    func value(_ name: String) -> String? { values[name]?.last }

    /// An option's value as a number within `range`.
    func number(_ name: String, in range: ClosedRange<Double>) throws(UsageError) -> Double? {
        guard let text = value(name) else { return nil }
        guard let number = Double(text), range.contains(number) else {
            throw UsageError(
                "--\(name) must be a number from \(StatusView.trim(range.lowerBound)) to \(StatusView.trim(range.upperBound)), not \"\(text)\""
            )
        }
        return number
    }

    /// An option's value as a time ("83.5", "1:23", "1:02:03").
    func time(_ name: String) throws(UsageError) -> Double? {
        guard let text = value(name) else { return nil }
        guard let seconds = TimeText.seconds(text) else {
            throw UsageError("--\(name) must be a time such as 83.5, 1:23 or 1:02:03, not \"\(text)\"")
        }
        return seconds
    }

    /// An option's value as an integer within `range`.
    func integer(_ name: String, in range: ClosedRange<Int>) throws(UsageError) -> Int? {
        guard let text = value(name) else { return nil }
        guard let number = Int(text), range.contains(number) else {
            throw UsageError(
                "--\(name) must be a whole number from \(range.lowerBound) to \(range.upperBound), not \"\(text)\"")
        }
        return number
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
            if option.optionalNumber {
                result.flags.insert(option.name)
                if let value = inlineValue ?? remaining.first.flatMap({ Int($0) != nil ? $0 : nil }) {
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
