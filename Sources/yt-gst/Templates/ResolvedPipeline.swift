// yt-gst — a pipeline after its options are resolved: launch text and the properties to set.

/// A pipeline ready to build: launch text without placeholders, and the values to set on its elements.
struct ResolvedPipeline: Equatable {
    struct Property: Equatable {
        var element: String
        var property: String
        var value: String
    }

    var launch: String
    var properties: [Property]
    /// "template wav-file (built-in)" or "launch string", for messages.
    var origin: String
}
