// yt-gst — a pipeline after its options are resolved: launch text and the properties to set.
import GstPlayer

/// A pipeline ready to build: launch text without placeholders, and the values to set on its elements.
public struct ResolvedPipeline: Equatable, Sendable {
    public typealias Property = PropertySetting

    public var launch: String
    public var properties: [Property]
    /// "template wav-file (built-in)" or "launch string", for messages.
    public var origin: String
}
