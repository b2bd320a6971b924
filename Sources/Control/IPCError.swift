// yt-gst — mpv's error strings, which clients compare.

/// The errors of mpv's IPC protocol, with the exact strings mpv 0.35 sends (`mpv_error_string`).
public enum IPCError: String, Error, Sendable {
    /// An unknown command, a malformed line, a missing or wrong argument.
    case invalidParameter = "invalid parameter"
    /// A name that is no property.
    case propertyNotFound = "property not found"
    /// A property without a value now (no file loaded), or one that cannot be set.
    case propertyUnavailable = "property unavailable"
    /// A value of the wrong type for the property.
    case unsupportedFormat = "unsupported format for accessing property"
    /// A command that could not be run now (a seek with nothing playing, next past the end).
    case commandFailed = "error running command"
    /// `loadfile` given something that is not a playable WAV file.
    case loadingFailed = "loading failed"
}

/// What a session kind (play, record, ...) answers on the IPC socket: its properties and commands, in mpv's terms.
///
/// The dispatcher handles the protocol (request ids, observations, get/set_property, property-list); a target only
/// knows its session. All calls come on the main loop's thread.
public protocol IPCTarget: AnyObject {
    /// Every property name, for `property-list` and to tell "not found" from "unavailable".
    var propertyNames: [String] { get }
    /// Every command name beyond the protocol's own, for `command-list`.
    var commandNames: [String] { get }
    /// The value now; nil when the property exists but has none now (mpv's "property unavailable").
    func property(_ name: String) -> JSONValue?
    /// Sets a property; throws `.propertyUnavailable` for read-only ones, `.unsupportedFormat` for a wrong value.
    func setProperty(_ name: String, to value: JSONValue) throws(IPCError)
    /// Runs a command (`arguments` after the name); returns its data (nil: none).
    func run(_ name: String, _ arguments: [JSONValue]) throws(IPCError) -> JSONValue?
    /// Properties whose observations are sent at most 4 times a second (a position that changes all the time).
    var rateLimitedProperties: Set<String> { get }
    /// A request has been answered (it may have added or removed an observation: see `IPCDispatcher.observed`).
    func requestHandled()
}

extension IPCTarget {
    public func requestHandled() {}
}
