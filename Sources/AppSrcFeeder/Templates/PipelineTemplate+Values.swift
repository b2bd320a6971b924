// yt-gst — a template with its placeholders filled: the launch text and the properties to set after parsing.
import GstPlayer

/// Why values do not fit a template.
public enum TemplateError: Error, Sendable, Equatable {
    /// A value for a placeholder the template does not have; `known`: the ones it has, sorted.
    case unknownKey(String, known: [String])
    /// A required placeholder (`${key}`, without a default) that got no value.
    case missingValue(String)
}

extension PipelineTemplate {
    /// The launch text without placeholders, and the property values `values` give them (a template's own default
    /// where a key has none; an optional placeholder without either leaves its property alone).
    public func instantiate(values: [String: String]) throws(TemplateError) -> ResolvedPipeline {
        let (launch, slots) = split()
        let known = Set(slots.flatMap { Placeholder.scan($0.valueTemplate).map(\.key) })
        if let unknown = values.keys.sorted().first(where: { !known.contains($0) }) {
            throw .unknownKey(unknown, known: known.sorted())
        }
        var properties: [ResolvedPipeline.Property] = []
        for slot in slots {
            do {
                guard let value = try Placeholder.fill(slot.valueTemplate, with: values) else { continue }
                properties.append(.init(element: slot.element, property: slot.property, value: value))
            } catch {
                throw .missingValue(error.key)
            }
        }
        let from = name.isEmpty ? origin : "template \"\(name)\" (\(origin))"
        return ResolvedPipeline(launch: launch, properties: properties, origin: from)
    }
}
