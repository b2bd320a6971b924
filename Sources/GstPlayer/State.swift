// yt-gst — element states and the ways a state change can succeed.
internal import CGStreamer

/// The state of an element or pipeline.
public enum State: Sendable, Equatable, CustomStringConvertible {
    case voidPending, null, ready, paused, playing

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
