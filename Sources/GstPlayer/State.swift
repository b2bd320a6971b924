// yt-gst — element states and the ways a state change can succeed.
internal import CGStreamer

/// The state of an element or pipeline.
///
/// The corresponding C type is `GstState`.
public enum State: Sendable, Equatable, CustomStringConvertible {
    /// No state: as a pending state, "no change under way" (`GST_STATE_VOID_PENDING`).
    case voidPending
    /// The initial state: no resources held (`GST_STATE_NULL`).
    case null
    /// Resources allocated (devices opened), no data flowing (`GST_STATE_READY`).
    case ready
    /// Prerolled: data has reached the sinks, the clock is stopped (`GST_STATE_PAUSED`).
    case paused
    /// Data flows and the clock runs (`GST_STATE_PLAYING`).
    case playing

    init(_ raw: GstState) {
        switch raw {
        case GST_STATE_NULL: self = .null
        case GST_STATE_READY: self = .ready
        case GST_STATE_PAUSED: self = .paused
        case GST_STATE_PLAYING: self = .playing
        default: self = .voidPending
        }
    }

    var raw: GstState {
        switch self {
        case .voidPending: GST_STATE_VOID_PENDING
        case .null: GST_STATE_NULL
        case .ready: GST_STATE_READY
        case .paused: GST_STATE_PAUSED
        case .playing: GST_STATE_PLAYING
        }
    }

    /// The state in words for users ("stopped" for NULL).
    public var description: String {
        switch self {
        case .voidPending: "pending"
        case .null: "stopped"
        case .ready: "ready"
        case .paused: "paused"
        case .playing: "playing"
        }
    }
}

/// The three kinds of success of a state change (failure is a thrown `GstError`).
public enum StateChangeSuccess: Sendable, Equatable {
    /// Done.
    case success
    /// Under way: the pipeline prerolls and posts ASYNC_DONE when it has.
    case async
    /// Done, but a live source means the pipeline cannot preroll in PAUSED.
    case noPreroll
}
