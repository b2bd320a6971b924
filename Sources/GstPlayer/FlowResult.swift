// yt-gst — what an element did with data pushed into it.
internal import CGStreamer

/// The outcome of pushing a buffer (or an end of stream) into a pipeline.
///
/// The corresponding C type is `GstFlowReturn`.
public enum FlowResult: Sendable, Equatable {
    /// Accepted (`GST_FLOW_OK`).
    case ok
    /// Nothing is linked downstream (`GST_FLOW_NOT_LINKED`).
    case notLinked
    /// A seek or stop is under way: stop pushing for now (`GST_FLOW_FLUSHING`).
    case flushing
    /// The stream has already ended (`GST_FLOW_EOS`).
    case endOfStream
    /// Downstream could not agree on a format (`GST_FLOW_NOT_NEGOTIATED`).
    case notNegotiated
    /// A fatal error; an ERROR message is on the bus (`GST_FLOW_ERROR`), or the buffer could not be allocated.
    case error
    /// The operation is not supported (`GST_FLOW_NOT_SUPPORTED`).
    case notSupported
    /// An element's own success code (`GST_FLOW_CUSTOM_SUCCESS` and above): treat as accepted.
    case customSuccess
    /// An element's own error code (`GST_FLOW_CUSTOM_ERROR` and below): treat as an error.
    case customError

    init(_ raw: GstFlowReturn) {
        switch raw {
        case GST_FLOW_OK: self = .ok
        case GST_FLOW_NOT_LINKED: self = .notLinked
        case GST_FLOW_FLUSHING: self = .flushing
        case GST_FLOW_EOS: self = .endOfStream
        case GST_FLOW_NOT_NEGOTIATED: self = .notNegotiated
        case GST_FLOW_NOT_SUPPORTED: self = .notSupported
        default:
            if raw.rawValue >= GST_FLOW_CUSTOM_SUCCESS.rawValue {
                self = .customSuccess
            } else if raw.rawValue <= GST_FLOW_CUSTOM_ERROR.rawValue {
                self = .customError
            } else {
                self = .error
            }
        }
    }
}
