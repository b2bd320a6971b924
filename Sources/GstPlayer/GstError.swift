// yt-gst — the one error type for everything GStreamer reports.
internal import CGStreamer

/// An error from GStreamer, with the whole GError and where it came from.
///
/// The message is what users see; the debug string is GStreamer's detail, for verbose output.
/// The corresponding C type is `GError`.
public struct GstError: Error, Sendable, CustomStringConvertible {
    /// What went wrong, as callers decide on it (the GError's domain and code only say who reported it).
    public enum Kind: Sendable, Equatable {
        /// The launch string could not be parsed (syntax, link or property errors).
        case parse
        /// The launch string names an element that is not installed.
        case missingElement
        /// An element or property the caller asked for is not in the pipeline.
        case notFound
        /// The pipeline lacks the appsrc or appsink the caller feeds or reads (`Pipeline.appSource(named:)`,
        /// `Pipeline.appSink(named:)`): no element of that name, or one of another kind.
        case missingAppElement
        /// A property value was rejected.
        case invalidValue
        /// The pipeline refused a state change.
        case stateChange
        /// A network port could not be bound (in use, or not allowed), e.g. to publish a clock on.
        case portUnavailable
        /// A control (seek, volume) was asked of a player with no current play.
        case notPlaying
        /// A feeder was asked to feed with nothing to play (no file opened).
        case nothingToPlay
        /// An ERROR or WARNING posted while streaming.
        case stream
        /// A query or seek that the pipeline could not answer.
        case unsupported
    }

    /// What went wrong, for decisions: callers switch on this, never on the message.
    public var kind: Kind
    /// GError domain, for messages: e.g. "gst_parse_error", "gst-resource-error-quark". Decisions use `kind`.
    public var domain: String
    /// GError code within its domain.
    public var code: Int32
    /// GError message: the one line users see.
    public var message: String
    /// GStreamer's debug string (element, file, function and details), when there is one.
    public var debug: String?
    /// Path of the element that reported the problem, e.g. "/GstPipeline:pipeline0/GstPulseSink:pulsesink0".
    public var elementPath: String?
    /// The GError's domain as GStreamer identifies it (0 for errors GstPlayer makes itself), for classifying by
    /// domain without comparing names.
    var domainQuark: UInt32

    /// An error GstPlayer (or its caller) finds itself, not one GStreamer reported: by default in the domain
    /// "GstPlayer", with code 0.
    public init(
        kind: Kind, message: String, domain: String = "GstPlayer", code: Int32 = 0, debug: String? = nil,
        elementPath: String? = nil
    ) {
        self.domainQuark = 0
        self.kind = kind
        self.domain = domain
        self.code = code
        self.message = message
        self.debug = debug
        self.elementPath = elementPath
    }

    /// Converts a GError (and its debug string) that arrive *transfer full*, freeing both.
    init(
        kind: Kind, taking error: UnsafeMutablePointer<GError>?, debug: UnsafeMutablePointer<gchar>? = nil,
        elementPath: String? = nil
    ) {
        defer {
            if let error { g_error_free(error) }
            g_free(debug)
        }
        self.kind = kind
        self.domainQuark = error?.pointee.domain ?? 0
        self.domain = error.flatMap { g_quark_to_string($0.pointee.domain).map { String(cString: $0) } } ?? "unknown"
        self.code = error?.pointee.code ?? 0
        self.message = error.flatMap { $0.pointee.message.map { String(cString: $0) } } ?? "unknown error"
        self.debug = debug.map { String(cString: $0) }
        self.elementPath = elementPath
    }

    /// The name of the element in `elementPath` ("pulsesink0" from ".../GstPulseSink:pulsesink0").
    public var elementName: String? { GstError.elementName(inPath: elementPath) }

    /// The last element's name in a path such as "/GstPipeline:pipeline0/GstPulseSink:pulsesink0".
    static func elementName(inPath path: String?) -> String? {
        guard let last = path?.split(separator: "/").last else { return nil }
        return last.split(separator: ":").last.map(String.init)
    }

    /// One line: the message, and the element it came from.
    public var description: String {
        guard let name = elementName else { return message }
        return "\(message) (from element \(name))"
    }

    /// The message, the element path and the debug string, for verbose output.
    public var verboseDescription: String {
        var text = description
        if let elementPath { text += "\n  element: \(elementPath)" }
        text += "\n  error: \(domain):\(code)"
        if let debug { text += "\n  debug: \(debug)" }
        return text
    }
}
