// yt-gst — what every session kind's IPC socket shares: its dispatcher, and mpv's way of reading values.

/// A session kind's side of the IPC socket (`PlaybackIPC`, `RecordIPC`, ...): an `IPCTarget` that owns the
/// dispatcher serving it.
public protocol IPCSurface: IPCTarget {
    var dispatcher: IPCDispatcher { get }
}

extension IPCSurface {
    /// The socket's path (until `close()`).
    public var path: String? { dispatcher.path }

    /// Says `shutdown`, closes every client and removes the socket (also done when the session ends).
    public func close() { dispatcher.close() }
}

/// Values as mpv takes them in `set_property` and commands.
enum IPCValue {
    /// A flag: true/false, or "yes"/"no".
    static func flag(_ value: JSONValue) throws(IPCError) -> Bool {
        switch value {
        case .bool(let flag): return flag
        case .string("yes"): return true
        case .string("no"): return false
        default: throw .unsupportedFormat
        }
    }

    /// A number, or a string that is one ("50").
    static func number(_ value: JSONValue) throws(IPCError) -> Double {
        if let number = value.double ?? value.string.flatMap(Double.init), number.isFinite { return number }
        throw .unsupportedFormat
    }

    /// A number, as JSON has no infinities (a silent channel's peak): nil for those.
    static func finite(_ value: Double) -> JSONValue { value.isFinite ? .number(value) : .null }
}
