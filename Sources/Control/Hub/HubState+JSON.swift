// yt-gst — the hub's groups and rooms as Snapcast's JSON objects, and back (what HubStore keeps).

extension HubClient {
    /// Snapcast's client object, with what yt-gst adds under "yt-gst" (Snapcast's clients ignore it).
    public var json: JSONValue {
        let lastSeenSeconds = lastSeen.rounded(.down)
        return .object([
            ("config", config.json),
            ("connected", .bool(connected)),
            ("host", host.json),
            ("id", .string(id)),
            (
                "lastSeen",
                .object([
                    ("sec", .number(lastSeenSeconds)),
                    ("usec", .number(((lastSeen - lastSeenSeconds) * 1e6).rounded())),
                ])
            ),
            ("snapclient", .object([("name", "yt-gst"), ("protocolVersion", 2), ("version", .string(version))])),
            ("yt-gst", extras),
        ])
    }

    /// The room's last report while it is connected; its state alone otherwise.
    var extras: JSONValue {
        if connected, let report { return report }
        return .object([("packets", .null), ("state", connected ? "connected" : "offline"), ("sync", .null)])
    }

    /// A stored client (as `json` wrote it); nil when it lacks an id.
    init?(stored value: JSONValue) {
        guard let id = value["id"]?.string, !id.isEmpty else { return nil }
        let host = value["host"] ?? .null
        self.init(
            id: id,
            host: HubHost(
                name: host["name"]?.string ?? "", os: host["os"]?.string ?? "", arch: host["arch"]?.string ?? "",
                mac: host["mac"]?.string ?? "", ip: host["ip"]?.string ?? ""),
            config: RoomConfig(json: value["config"] ?? .null))
        lastSeen = (value["lastSeen"]?["sec"]?.double ?? 0) + (value["lastSeen"]?["usec"]?.double ?? 0) / 1e6
        version = value["snapclient"]?["version"]?.string ?? ""
    }
}

extension RoomConfig {
    /// Snapcast's client config (`instance` is always 1: one receiver per id).
    public var json: JSONValue {
        .object([
            ("instance", 1), ("latency", .number(Double(latency))), ("name", .string(name)), ("volume", volumeJSON),
        ])
    }

    /// `{"muted": M, "percent": P}`.
    public var volumeJSON: JSONValue {
        .object([("muted", .bool(muted)), ("percent", .number(Double(volumePercent)))])
    }

    /// A config as `json` writes it; what is missing or out of range keeps its default.
    public init(json: JSONValue) {
        self.init()
        if let name = json["name"]?.string { self.name = name }
        if let percent = json["volume"]?["percent"]?.integer, Self.percentRange.contains(percent) {
            volumePercent = percent
        }
        if let muted = json["volume"]?["muted"]?.bool { self.muted = muted }
        if let latency = json["latency"]?.integer, Self.latencyRange.contains(latency) { self.latency = latency }
    }
}

extension HubHost {
    public var json: JSONValue {
        .object([
            ("arch", .string(arch)), ("ip", .string(ip)), ("mac", .string(mac)), ("name", .string(name)),
            ("os", .string(os)),
        ])
    }

    /// What `host` says in a room's Hello; the address comes from the connection.
    init(json: JSONValue, ip: String) {
        self.init(
            name: json["name"]?.string ?? "", os: json["os"]?.string ?? "", arch: json["arch"]?.string ?? "",
            mac: json["mac"]?.string ?? "", ip: ip)
    }
}

extension HubState {
    /// Snapcast's group object, its rooms inside.
    public func json(of group: HubGroup) -> JSONValue {
        .object([
            ("clients", .array(group.clients.compactMap { clients[$0]?.json })),
            ("id", .string(group.id)),
            ("muted", .bool(group.muted)),
            ("name", .string(group.name)),
            ("stream_id", .string(group.streamID)),
        ])
    }

    /// What HubStore writes: `{"groups": [...]}`, each group as `Server.GetStatus` lists it, without what lasts
    /// only while a room is connected (its reports).
    public var stored: JSONValue {
        var kept = self
        for id in clients.keys {
            kept.clients[id]?.connected = false
            kept.clients[id]?.report = nil
        }
        return .object([("groups", .array(groups.map { kept.json(of: $0) }))])
    }

    /// Groups and rooms as `stored` wrote them (every room disconnected); groups on another stream are moved to
    /// `streamID` (the hub serves one stream).
    public init(stored value: JSONValue, streamID: String) {
        self.init()
        for groupValue in value["groups"]?.array ?? [] {
            guard let id = groupValue["id"]?.string else { continue }
            let members = (groupValue["clients"]?.array ?? []).compactMap(HubClient.init(stored:))
                .filter { clients[$0.id] == nil }
            guard !members.isEmpty else { continue }
            for client in members { clients[client.id] = client }
            var group = HubGroup(id: id, streamID: streamID, clients: members.map(\.id))
            group.name = groupValue["name"]?.string ?? ""
            group.muted = groupValue["muted"]?.bool ?? false
            groups.append(group)
        }
    }
}
