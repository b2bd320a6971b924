import Glibc
// yt-gst — MPRIS 2 on the session bus: the name, the object and its two interfaces, and their signals.
import GstPlayer

/// What a session publishes through MPRIS's `org.mpris.MediaPlayer2.Player` interface.
///
/// - Note: Called on the main loop's thread.
public protocol MPRISTarget: AnyObject {
    /// Every property of the Player interface now (`Position` included).
    var playerProperties: [String: DBusValue] { get }
    /// Runs a Player method (`Play`, `Seek`, ...), or `Quit` of the root interface.
    func call(_ method: String, _ arguments: [DBusValue?]) throws(DBusError)
    /// Sets a writable Player property (`Volume`, `Rate`, `LoopStatus`, `Shuffle`).
    func setProperty(_ name: String, to value: DBusValue?) throws(DBusError)
}

/// The MPRIS 2 service of one player: owns `org.mpris.MediaPlayer2.yt_gst` (or `.instance<PID>` when another
/// player has it), answers at `/org/mpris/MediaPlayer2` from its target, and tells the desktop what changed.
///
/// Changes are told once per loop turn: `changed()` schedules one comparison at the loop's next turn, which sends a
/// single `PropertiesChanged` with every Player property whose value differs from the one last sent (`Position` is
/// never signalled, as the specification says; `seeked(to:)` tells a jump).
/// - Note: Not Sendable: create, use and close it on the thread that runs the session's loop.
public final class MPRISService: DBusObject {
    public static let objectPath = "/org/mpris/MediaPlayer2"
    static let rootInterface = "org.mpris.MediaPlayer2"
    static let playerInterface = "org.mpris.MediaPlayer2.Player"
    /// The well-known name; `.instance<PID>` is appended when it is taken.
    public static let busName = "org.mpris.MediaPlayer2.yt_gst"

    /// The name owned on the bus.
    public private(set) var name = ""
    private let bus: SessionBus
    private weak var target: MPRISTarget?
    /// The Player properties as last sent (or as first read).
    private var published: [String: DBusValue] = [:]
    private var pending: MainLoop.Watch?

    /// Publishes `target` on the session bus; nil, silently, when there is no session bus (a server, SSH) or it
    /// refuses both names.
    public init?(target: MPRISTarget) {
        guard let bus = SessionBus.connect() else { return nil }
        self.bus = bus
        self.target = target
        do throws(DBusError) {
            try bus.register(self, at: Self.objectPath, introspection: Self.introspection)
        } catch {
            return nil
        }
        guard let name = bus.own(firstOf: [Self.busName, "\(Self.busName).instance\(getpid())"]) else { return nil }
        self.name = name
        published = Self.signalled(target.playerProperties)
    }

    /// Something may have changed: compares and signals at the loop's next turn (once, however many changes).
    public func changed() {
        guard pending == nil else { return }
        pending = MainLoop.after(.zero) { [weak self] in self?.sendChanges() }
    }

    /// Says `Seeked` with the new position.
    public func seeked(to microseconds: Int64) {
        bus.emit("Seeked", on: Self.playerInterface, from: Self.objectPath, [.int64(microseconds)])
    }

    /// Sends what changed last, then leaves the bus.
    public func close() {
        pending?.cancel()
        sendChanges()
        bus.close()
    }

    private func sendChanges() {
        pending = nil
        guard let target else { return }
        let now = Self.signalled(target.playerProperties)
        let changed = now.filter { published[$0.key] != $0.value }
        guard !changed.isEmpty else { return }
        published = now
        bus.emit(
            "PropertiesChanged", on: "org.freedesktop.DBus.Properties", from: Self.objectPath,
            [.string(Self.playerInterface), .dictionary(changed), .strings([])])
    }

    private static func signalled(_ properties: [String: DBusValue]) -> [String: DBusValue] {
        properties.filter { $0.key != "Position" }
    }

    // MARK: DBusObject

    public func call(_ method: String, on interface: String, _ arguments: [DBusValue?]) throws(DBusError) {
        guard let target else { return }
        switch (interface, method) {
        case (Self.rootInterface, "Raise"): return
        case (Self.rootInterface, "Quit"), (Self.playerInterface, _): try target.call(method, arguments)
        default: throw DBusError(.unknownMethod, "no method \(method) in \(interface)")
        }
        changed()
    }

    public func property(_ name: String, on interface: String) throws(DBusError) -> DBusValue {
        let value = interface == Self.rootInterface ? Self.rootProperties[name] : target?.playerProperties[name]
        guard let value else { throw DBusError(.unknownProperty, "no property \(name) in \(interface)") }
        return value
    }

    public func setProperty(_ name: String, on interface: String, to value: DBusValue?) throws(DBusError) {
        guard interface == Self.playerInterface, let target else {
            throw DBusError(.propertyReadOnly, "\(name) is read-only")
        }
        try target.setProperty(name, to: value)
        changed()
    }

    static let rootProperties: [String: DBusValue] = [
        "Identity": .string("yt-gst"), "DesktopEntry": .string("yt-gst"), "CanQuit": .bool(true),
        "CanRaise": .bool(false), "CanSetFullscreen": .bool(false), "Fullscreen": .bool(false),
        "HasTrackList": .bool(false), "SupportedUriSchemes": .strings(["file"]),
        "SupportedMimeTypes": .strings(["audio/wav", "audio/x-wav", "audio/wave", "audio/vnd.wave"]),
    ]

    /// The two interfaces, as the MPRIS 2.2 specification declares them.
    static let introspection = """
        <node>
          <interface name="org.mpris.MediaPlayer2">
            <method name="Raise"/>
            <method name="Quit"/>
            <property name="CanQuit" type="b" access="read"/>
            <property name="Fullscreen" type="b" access="read"/>
            <property name="CanSetFullscreen" type="b" access="read"/>
            <property name="CanRaise" type="b" access="read"/>
            <property name="HasTrackList" type="b" access="read"/>
            <property name="Identity" type="s" access="read"/>
            <property name="DesktopEntry" type="s" access="read"/>
            <property name="SupportedUriSchemes" type="as" access="read"/>
            <property name="SupportedMimeTypes" type="as" access="read"/>
          </interface>
          <interface name="org.mpris.MediaPlayer2.Player">
            <method name="Next"/>
            <method name="Previous"/>
            <method name="Pause"/>
            <method name="PlayPause"/>
            <method name="Stop"/>
            <method name="Play"/>
            <method name="Seek"><arg direction="in" name="Offset" type="x"/></method>
            <method name="SetPosition">
              <arg direction="in" name="TrackId" type="o"/>
              <arg direction="in" name="Position" type="x"/>
            </method>
            <method name="OpenUri"><arg direction="in" name="Uri" type="s"/></method>
            <signal name="Seeked"><arg name="Position" type="x"/></signal>
            <property name="PlaybackStatus" type="s" access="read"/>
            <property name="LoopStatus" type="s" access="readwrite"/>
            <property name="Rate" type="d" access="readwrite"/>
            <property name="Shuffle" type="b" access="readwrite"/>
            <property name="Metadata" type="a{sv}" access="read"/>
            <property name="Volume" type="d" access="readwrite"/>
            <property name="Position" type="x" access="read"/>
            <property name="MinimumRate" type="d" access="read"/>
            <property name="MaximumRate" type="d" access="read"/>
            <property name="CanGoNext" type="b" access="read"/>
            <property name="CanGoPrevious" type="b" access="read"/>
            <property name="CanPlay" type="b" access="read"/>
            <property name="CanPause" type="b" access="read"/>
            <property name="CanSeek" type="b" access="read"/>
            <property name="CanControl" type="b" access="read"/>
          </interface>
        </node>
        """
}
