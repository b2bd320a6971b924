// yt-gst — GStreamer's resource errors by code, so callers tell them apart without reading the message.
internal import CGStreamer

extension GstError {
    /// The resource error codes (`GstResourceError`) that yt-gst tells apart; the others are `.other(code)`.
    public enum ResourceError: Sendable, Equatable {
        /// Opening for reading, writing or both failed (a bind, a missing file, a refused device).
        case open
        /// Reading from an opened resource failed (a source lost its input).
        case read
        /// Writing to an opened resource failed (a sink lost its output).
        case write
        /// The resource does not exist (an HTTP 404, a missing file: `GST_RESOURCE_ERROR_NOT_FOUND`).
        case notFound
        /// The resource refused access: no permission to open or use it (`GST_RESOURCE_ERROR_NOT_AUTHORIZED`).
        case notAuthorized
        /// Any other `GstResourceError` code, as the number GStreamer gave.
        case other(Int32)
    }

    /// The resource error this is, or nil when its domain is not `GST_RESOURCE_ERROR`.
    ///
    /// The corresponding C function is `gst_resource_error_quark`.
    public var resourceError: ResourceError? {
        guard domainQuark != 0, domainQuark == gst_resource_error_quark() else { return nil }
        switch UInt32(bitPattern: code) {
        case GST_RESOURCE_ERROR_OPEN_READ.rawValue, GST_RESOURCE_ERROR_OPEN_WRITE.rawValue,
            GST_RESOURCE_ERROR_OPEN_READ_WRITE.rawValue:
            return .open
        case GST_RESOURCE_ERROR_READ.rawValue: return .read
        case GST_RESOURCE_ERROR_WRITE.rawValue: return .write
        case GST_RESOURCE_ERROR_NOT_AUTHORIZED.rawValue: return .notAuthorized
        case GST_RESOURCE_ERROR_NOT_FOUND.rawValue: return .notFound
        default: return .other(code)
        }
    }
}

extension GstError {
    /// A read failure as an element posts it (`AppSource.postError` does, in GStreamer's resource domain), for the
    /// stand-ins of elements in GstPlayerTesting: `resourceError` reads `.read` from it as from a posted one.
    package static func readFailure(_ message: String, debug: String?, elementPath: String?) -> GstError {
        var error = GstError(
            kind: .stream, message: message, domain: "gst-resource-error-quark",
            code: Int32(GST_RESOURCE_ERROR_READ.rawValue), debug: debug, elementPath: elementPath)
        error.domainQuark = gst_resource_error_quark()
        return error
    }
}
