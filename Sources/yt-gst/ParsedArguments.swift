// yt-gst — a parsed command line and its typed option values.

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
