// yt-gst — a named pipeline template: a description line, a launch string, and ${placeholders} for user values.
import GstPlayer

/// A `pipelines/NAME.pipeline` file.
///
/// The first line is `# description`; the rest is gst-launch syntax in which property values may hold
/// placeholders: `${key}` (required), `${key:-default}`, `${key:-}` (optional: the property keeps its own default
/// when no value is given). Values are never pasted into the launch text: the placeholders are taken out before
/// parsing and their values set as element properties afterwards, so any character arrives unchanged.
public struct PipelineTemplate: Equatable, Sendable {
    public var name: String
    public var description: String
    /// The launch string with its placeholders.
    public var text: String
    /// Where it came from: a file path or "built-in".
    public var origin: String

    public init(name: String, contents: String, origin: String) {
        self.name = name
        self.origin = origin
        var lines = contents.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        if let first = lines.first, first.hasPrefix("#") {
            description = String(first.dropFirst()).trimmingWhitespace
            lines.removeFirst()
        } else {
            description = ""
        }
        text = lines.filter { !$0.hasPrefix("#") }.joined(separator: " ").trimmingWhitespace
    }

    /// A property to set after parsing: element name, property, value template (e.g. "srt://${host}:${port:-7001}").
    public struct Slot: Equatable, Sendable {
        public var element: String
        public var property: String
        public var valueTemplate: String
    }

    /// The launch text without placeholders (elements that hold one are named so they can be found), and the slots.
    /// The rest of the text stays as written.
    public func split() -> (launch: String, slots: [Slot]) {
        let scalars = Array(text.unicodeScalars)
        var edits: [(range: Range<Int>, text: String)] = []
        var slots: [Slot] = []
        var generated = 0
        for element in Launch.elements(in: text) {
            let held = element.properties.filter { $0.value.contains("${") }
            guard !held.isEmpty else { continue }
            let name: String
            if let existing = element.value(of: "name") {
                name = existing
            } else {
                generated += 1
                name = "yt-gst-slot\(generated)"
                edits.append((element.factoryRange.upperBound..<element.factoryRange.upperBound, " name=\(name)"))
            }
            for property in held {
                // The property goes with the space before it.
                var start = property.range.lowerBound
                while start > 0, scalars[start - 1].properties.isWhitespace { start -= 1 }
                edits.append((start..<property.range.upperBound, ""))
                slots.append(Slot(element: name, property: property.key, valueTemplate: property.value))
            }
        }
        return (Launch.replacing(edits, in: text), slots)
    }

    /// The keys this template takes, with their defaults (nil = required, "" = optional).
    public var placeholders: [(key: String, fallback: String?)] {
        var seen: [(String, String?)] = []
        for slot in split().slots {
            for (key, fallback) in Placeholder.scan(slot.valueTemplate) where !seen.contains(where: { $0.0 == key }) {
                seen.append((key, fallback))
            }
        }
        return seen
    }
}
