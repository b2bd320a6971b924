// yt-gst — who a receiver is to the hub: a stable id and its own config, kept in $XDG_STATE_HOME/yt-gst/rooms/.

/// A room's stable id (made once, at random) and the config it last had (name, volume, mute, delay), so it keeps
/// them across restarts of the receiver or of the hub: `rooms/<NAME>.json` for `receive --name NAME`,
/// `rooms/default.json` without it.
public struct RoomIdentity: Equatable, Sendable {
    public var id: String
    public var config: RoomConfig
    /// Where it is kept; nil when there is no state directory, or the file there could not be read (it is then
    /// left as it was).
    public var file: StateFile?

    public init(id: String, config: RoomConfig, file: StateFile?) {
        (self.id, self.config, self.file) = (id, config, file)
    }

    /// The identity kept for `name` (nil: the default room, named after the host), or a new one.
    /// - Returns: it, and the problem with a file that was there but could not be read (a new identity is then
    ///   used, and the file left alone).
    public static func load(name: String?) -> (RoomIdentity, problem: StateFileError?) {
        let file = StateFile(named: "rooms/" + fileName(name))
        var fresh = RoomIdentity(id: RandomID.uuid(), config: RoomConfig(name: name ?? HubHost.hostName), file: file)
        do throws(StateFileError) {
            guard let value = try file?.read() else { return (fresh, nil) }
            guard let id = value["id"]?.string, !id.isEmpty else {
                throw StateFileError(path: file?.path ?? "", problem: "has no room id")
            }
            return (RoomIdentity(id: id, config: RoomConfig(json: value["config"] ?? .null), file: file), nil)
        } catch {
            fresh.file = nil
            return (fresh, error)
        }
    }

    /// Keeps the identity (nothing without a file).
    public func save() throws(StateFileError) {
        try file?.write(.object([("config", config.json), ("id", .string(id))]))
    }

    /// The file's name for a room's name: letters, digits, '-', '_' and '.' kept, anything else '_'.
    static func fileName(_ name: String?) -> String {
        guard let name, !name.isEmpty else { return "default.json" }
        let safe = name.unicodeScalars.map { scalar -> Character in
            let allowed =
                scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) || "-_.".unicodeScalars.contains(scalar)
            return allowed && scalar.isASCII ? Character(scalar) : "_"
        }
        let text = String(safe)
        return (text.hasPrefix(".") ? "_" + text.dropFirst() : text) + ".json"
    }
}
