// yt-gst — what the control service knows: Snapcast's groups and clients (the rooms), as plain values.

/// The machine a room (or the hub) runs on, as Snapcast's `host` object says it.
public struct HubHost: Equatable, Sendable {
    public var name: String
    public var os: String
    public var arch: String
    public var mac: String
    public var ip: String

    public init(name: String, os: String = "", arch: String = "", mac: String = "", ip: String = "") {
        (self.name, self.os, self.arch, self.mac, self.ip) = (name, os, arch, mac, ip)
    }
}

/// What a room plays with: its name, volume (Snapcast's percent), mute and delay; the room applies it.
public struct RoomConfig: Equatable, Sendable {
    /// Empty: not named (clients show the host name).
    public var name: String
    public var volumePercent: Int
    public var muted: Bool
    /// Snapcast's latency: this room plays this many ms later (the receiver's --delay-ms).
    public var latency: Int

    public init(name: String = "", volumePercent: Int = 100, muted: Bool = false, latency: Int = 0) {
        (self.name, self.volumePercent, self.muted, self.latency) = (name, volumePercent, muted, latency)
    }

    public static let percentRange = 0...100
    public static let latencyRange = -10_000...10_000
}

/// One room: Snapcast's client.
public struct HubClient: Equatable, Sendable {
    public var id: String
    public var host: HubHost
    public var config: RoomConfig
    public var connected = false
    /// Wall-clock seconds since 1970 when it was last connected (or is).
    public var lastSeen = 0.0
    /// The receiver's yt-gst version.
    public var version = ""
    /// The room's last `yt-gst.Room.Report` (its state, sync and packets) while connected; nil before one.
    public var report: JSONValue?

    public init(id: String, host: HubHost, config: RoomConfig) {
        (self.id, self.host, self.config) = (id, host, config)
    }
}

/// Snapcast's group: rooms that play one stream, with a name and a mute of their own.
public struct HubGroup: Equatable, Sendable {
    public var id: String
    public var name = ""
    public var muted = false
    public var streamID: String
    public var clients: [String]

    public init(id: String, streamID: String, clients: [String]) {
        (self.id, self.streamID, self.clients) = (id, streamID, clients)
    }
}

/// Every group and room, in order: what `Server.GetStatus` lists and `HubStore` keeps.
public struct HubState: Equatable, Sendable {
    public var groups: [HubGroup] = []
    public var clients: [String: HubClient] = [:]

    public init() {}

    public func group(id: String) -> HubGroup? { groups.first { $0.id == id } }

    /// The group `clientID` is in.
    public func group(of clientID: String) -> HubGroup? { groups.first { $0.clients.contains(clientID) } }

    /// Whether the room is muted in effect: its own mute or its group's.
    public func effectivelyMuted(_ clientID: String) -> Bool {
        (clients[clientID]?.config.muted ?? false) || (group(of: clientID)?.muted ?? false)
    }

    /// Adds a room Snapcast's way (a group of its own, on `streamID`); true if it is new (its config then is
    /// `client.config`), false if it was known (it keeps the stored config; host and version are updated).
    public mutating func register(_ client: HubClient, streamID: String, newGroupID: () -> String) -> Bool {
        guard var known = clients[client.id] else {
            clients[client.id] = client
            groups.append(HubGroup(id: newGroupID(), streamID: streamID, clients: [client.id]))
            return true
        }
        known.host = client.host
        known.version = client.version
        known.connected = client.connected
        known.lastSeen = client.lastSeen
        clients[client.id] = known
        return false
    }

    /// Snapcast's Group.SetClients: `clientIDs` (all known) make up the group; the rooms it had that are not among
    /// them get a group each, and groups left empty go.
    public mutating func setClients(
        ofGroup groupID: String, to clientIDs: [String], newGroupID: () -> String
    ) {
        guard let target = group(id: groupID) else { return }
        let leaving = target.clients.filter { !clientIDs.contains($0) }
        for index in groups.indices { groups[index].clients.removeAll { clientIDs.contains($0) } }
        if let index = groups.firstIndex(where: { $0.id == groupID }) { groups[index].clients = clientIDs }
        for id in leaving {
            groups.append(HubGroup(id: newGroupID(), streamID: target.streamID, clients: [id]))
        }
        groups.removeAll { $0.clients.isEmpty }
    }

    /// Forgets a room (and its group, when it was the last in it).
    public mutating func delete(clientID: String) {
        clients[clientID] = nil
        for index in groups.indices { groups[index].clients.removeAll { $0 == clientID } }
        groups.removeAll { $0.clients.isEmpty }
    }

    /// Changes the group `id` (no-op for an unknown one).
    mutating func updateGroup(_ id: String, _ change: (inout HubGroup) -> Void) {
        if let index = groups.firstIndex(where: { $0.id == id }) { change(&groups[index]) }
    }
}
